// throw.cc - C++ exceptions for the QEMU plugin's proof (tests/test_qemu.sh):
// the unwinder leaves frames without their RETs, and lands in catch blocks
// with indirect jumps; a RET compression stack that trusted the CALLs
// would go wrong here.
#include <cstdio>
#include <stdexcept>
#include <string>

static int thrower(int depth, int when)
{
    if (depth == when) throw std::runtime_error("depth " + std::to_string(depth));
    return 1 + thrower(depth + 1, when);
}

int main()
{
    unsigned long caught = 0;
    for (int i = 0; i < 40; i++) {
        try {
            caught += static_cast<unsigned long>(thrower(0, i % 25));
        } catch (const std::exception &e) {
            caught += e.what()[6];
        }
    }
    std::printf("throw %lu\n", caught);
    return 0;
}
