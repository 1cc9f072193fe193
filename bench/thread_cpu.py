#!/usr/bin/env python3
"""The CPU time of each of a process's threads, by thread name, every half second (issue 21).

    bench/thread_cpu.py PID [OUT] [--interval 0.5]

Reads `/proc/PID/task/*/stat` until the process ends and writes one line per interval: the
seconds since the start, the process's CPU in percent of one core, then each thread name's
share (threads of one name added up, busiest first), e.g.

     43.1   140% load-writer=78 load-lines=38 lodestone=18

Where a bulk load's cores sit idle shows as lines under 200 % on two cores, and which thread
runs alone then; `perf record -t TID` of that thread says what it does. Start it beside the load:

    lodestone load --no-text-index --data S ds100k.nt & bench/thread_cpu.py $! threads.txt
"""

import argparse
import collections
import os
import sys
import time


def thread_times(pid):
    """CPU ticks (user + system) and name of each thread of `pid`, by thread id."""
    times = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                text = stat.read()
        except OSError:
            continue  # the thread ended since the listing
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        times[tid] = (name, int(fields[11]) + int(fields[12]))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pid")
    parser.add_argument("out", nargs="?", help="file to write (default: standard output)")
    parser.add_argument("--interval", type=float, default=0.5)
    args = parser.parse_args()
    out = open(args.out, "w") if args.out else sys.stdout
    ticks = os.sysconf("SC_CLK_TCK")
    start = time.time()
    before = {}
    while True:
        try:
            now = thread_times(args.pid)
        except OSError:
            break  # the process ended
        by_name = collections.Counter()
        for tid, (name, spent) in now.items():
            if tid in before:
                by_name[name] += spent - before[tid][1]
        before = now
        scale = 100 / ticks / args.interval
        shares = " ".join(f"{n}={v * scale:.0f}" for n, v in by_name.most_common() if v)
        total = sum(by_name.values()) * scale
        out.write(f"{time.time() - start:7.1f} {total:5.0f}% {shares}\n")
        out.flush()
        time.sleep(args.interval)


if __name__ == "__main__":
    main()
