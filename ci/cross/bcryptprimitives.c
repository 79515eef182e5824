/*
 * A stand-in for Windows' bcryptprimitives.dll, for wine 8 only (Debian 12's
 * wine64), which lacks the DLL. Rust's standard library (1.78 and later)
 * imports ProcessPrng from it to seed HashMap keys and fill random bytes, so
 * without it no Rust program starts under that wine. Real Windows (10 and
 * later) ships the DLL: this file is never used there. ProcessPrng is
 * answered with RtlGenRandom (advapi32's SystemFunction036), which wine has.
 * Built and installed into the wine prefix by ci/cross/windows.sh.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
