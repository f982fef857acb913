#!/usr/bin/env python3
"""Lists C functions longer than --max-function lines and source files longer
than --max-file lines under the given folders (issue 14: short functions and
files one can read at once). A function or file may exceed the limit only
with a stated reason: a comment containing "length:" in the 12 lines above
the function, or in the first 40 lines of the file. Exit status 1 when
something is over its limit without a reason, so ctest can run it.

Usage: check-lengths.py [--max-function N] [--max-file N] DIR...
Functions are found with ctags (Debian package universal-ctags/exuberant);
their end is the matching closing brace."""
import argparse, os, subprocess, sys

def functions(path):
    out = subprocess.run(['ctags', '-x', '--c-kinds=f', '--language-force=C', path],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) >= 3 and p[1] == 'function':
            yield p[0], int(p[2])

def body_end(lines, start):
    depth, seen = 0, False
    for i in range(start, len(lines)):
        for ch in lines[i]:
            if ch == '{': depth += 1; seen = True
            elif ch == '}': depth -= 1
        if seen and depth == 0: return i
    return None

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--max-function', type=int, default=120)
    ap.add_argument('--max-file', type=int, default=800)
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    bad = 0
    for d in a.dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith(('.c', '.h')): continue
                path = os.path.join(root, f)
                lines = open(path, encoding='utf-8', errors='replace').read().splitlines()
                if len(lines) > a.max_file and not any('length:' in l for l in lines[:40]):
                    print(f'{path}: {len(lines)} lines (limit {a.max_file}, no "length:" reason)')
                    bad += 1
                for name, ln in functions(path):
                    end = body_end(lines, ln - 1)
                    if end is None: continue
                    n = end - (ln - 1) + 1
                    reason = any('length:' in l for l in lines[max(0, ln - 13):ln - 1])
                    if n > a.max_function and not reason:
                        print(f'{path}:{ln}: {name} is {n} lines (limit {a.max_function}, no "length:" reason)')
                        bad += 1
    print(f'check-lengths: {bad} over the limits' if bad else 'check-lengths: all within the limits')
    return 1 if bad else 0

if __name__ == '__main__':
    sys.exit(main())
