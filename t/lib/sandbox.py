#!/usr/bin/env python3
"""What the kernel offers a sandbox, and a kernel that lacks it, for the tests.

usage: sandbox.py abi             print Landlock's ABI version (0: none)
       sandbox.py seccomp         exit 0 when seccomp filters can be installed
       sandbox.py nosys NAME... -- COMMAND [ARG...]
                                  run COMMAND with the system calls NAME
                                  (landlock, seccomp, unshare) failing with
                                  ENOSYS, as on a kernel built without them
                                  (or without user namespaces); exit 77
                                  where that cannot be arranged
"""
import ctypes
import os
import platform
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

ARCH = {
    "x86_64": (0xC000003E, {"seccomp": [317], "unshare": [272]}),
    "aarch64": (0xC00000B7, {"seccomp": [277], "unshare": [97]}),
}
LANDLOCK = [444, 445, 446]  # the same number on every architecture
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SECCOMP_GET_ACTION_AVAIL, SECCOMP_RET_ERRNO, SECCOMP_RET_ALLOW = 2, 0x00050000, 0x7FFF0000
ENOSYS = 38


def abi():
    v = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(v, 0)


def seccomp_ok():
    arch = ARCH.get(platform.machine())
    if arch is None:
        return False
    action = ctypes.c_uint32(SECCOMP_RET_ERRNO)
    return libc.syscall(arch[1]["seccomp"][0], SECCOMP_GET_ACTION_AVAIL, 0, ctypes.byref(action)) == 0


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def nosys(names, argv):
    arch = ARCH.get(platform.machine())
    if arch is None or not seccomp_ok():
        sys.exit(77)
    audit, table = arch
    nrs = []
    for n in names:
        nrs += LANDLOCK if n == "landlock" else table[n]
    ins = [(0x20, 0, 0, 4),                      # load the architecture
           (0x15, 0, 1 + 2 * len(nrs), audit),   # another one: allow
           (0x20, 0, 0, 0)]                      # load the number
    for nr in nrs:
        ins += [(0x15, 0, 1, nr), (0x06, 0, 0, SECCOMP_RET_ERRNO | ENOSYS)]
    ins.append((0x06, 0, 0, SECCOMP_RET_ALLOW))
    code = b"".join(struct.pack("=HBBI", *i) for i in ins)
    buf = ctypes.create_string_buffer(code, len(code))
    prog = SockFprog(len(ins), ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog)) != 0:
        sys.exit(77)
    os.execvp(argv[0], argv)


def main():
    args = sys.argv[1:]
    if args == ["abi"]:
        print(abi())
    elif args == ["seccomp"]:
        sys.exit(0 if seccomp_ok() else 1)
    elif len(args) > 2 and args[0] == "nosys" and "--" in args:
        i = args.index("--")
        nosys(args[1:i], args[i + 1:])
    else:
        sys.exit(__doc__)


main()
