"""SplitMix64 (Steele, Lea & Flood 2014) as etscope's core draws it (analysis/diffstats.h): the
generator of the bootstrap (gen_diff_stats.py) and of E-divisive's permutations
(edivisive_reference.py), so that numpy twins draw what the C++ draws."""

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)
