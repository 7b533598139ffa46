/* A stand-in for Windows' bcryptprimitives.dll under Wine 8 (Debian 12),
 * which lacks it. Rust's standard library (1.78 and later) imports
 * ProcessPrng from it to seed its hash maps; without it no Rust program
 * for Windows starts under that Wine. Built by scripts/test.d/12-windows.sh
 * into the suite's Wine prefix only: Windows itself has the real DLL. */
#include <windows.h>

/* RtlGenRandom, exported by advapi32 under this name. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
