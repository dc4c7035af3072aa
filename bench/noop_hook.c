// The no-op static hook the hook benchmark compares against: it reads its input, as git
// expects a hook to, and exits 0. Built by bench/hook.sh with `cc -static -O2`.
#include <unistd.h>

int main(void)
{
    char buf[65536];
    while (read(0, buf, sizeof buf) > 0) {
    }
    return 0;
}
