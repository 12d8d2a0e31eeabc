#include <cstdio>
int main() { std::puts("etscope-cli"); return 0; }
