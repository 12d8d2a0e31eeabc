#pragma once

// Is this debug buffer the one the ETDump logged into? A debug buffer has no header, no
// checksum and no name of its ETDump, and every default runner buffer is 262,144 bytes, so the
// size check alone accepts another run's buffer and shows a fake numeric bug. The judgement
// uses what the runtime guarantees (docs/formats.md §2.1): the buffer is zero-filled before the
// run and written only at the offsets the ETDump's debug events name.

#include "common/error.h"
#include "etdump/debugbuffer.h"
#include "etdump/etdumpfile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etscope {

struct BufferProvenance {
    enum class Verdict { Consistent, Doubtful, Mismatch };
    Verdict verdict = Verdict::Consistent;

    std::size_t loggedTensors = 0; // distinct non-empty tensors the ETDump placed in the buffer
    std::size_t zeroTensors = 0; // of those, every byte zero
    std::uint64_t usedEnd = 0; // one past the last byte of the last logged tensor
    std::uint64_t firstTrailingNonZero = 0; // offset of the first non-zero byte at or after usedEnd
    bool trailingNonZero = false;
    std::uint64_t trailingNonZeroBytes = 0; // non-zero bytes at or after usedEnd
    std::uint64_t floatSamples = 0; // float32/float64 elements looked at (up to kFloatSamples a tensor)
    std::uint64_t absurdFloats = 0; // of those, finite and non-zero with |x| outside [1e-32, 1e32]

    std::vector<std::string> reasons; // one phrase per signal against the pairing, for messages
    std::string reason() const; // the reasons joined with "; "
};

inline constexpr std::size_t kFloatSamplesPerTensor = 4096;

// Judges `buffer` against the tensors `etdump` logged (docs/formats.md §2.1):
// * a tensor reaching past the end of the buffer: an error (as DebugBuffer::bytes reports it);
// * signals: non-zero bytes in the padding before and between the logged tensors (the buffer
//   sink zero-fills it); more than half of the logged tensors (at least 3) entirely zero; at
//   least 2 % of the sampled float values with absurd magnitudes (random bytes read as float32:
//   ~16 %; tensors a model computed: ~0; NaN and Inf are not counted, since a diverging model
//   legitimately logs them); non-zero bytes after the last logged tensor (the runtime leaves
//   zeros there; another run's buffer holds its later tensors there).
// One signal makes the pairing Doubtful (load it, warn); two or more make it a Mismatch (refuse).
Result<BufferProvenance> judgeDebugBuffer(const ETDumpFile &etdump, const DebugBuffer &buffer);

} // namespace etscope
