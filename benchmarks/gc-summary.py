"""GC-log summary of a raft-kv results folder: per arm-repetition and peer, pauses by kind (count, p50, max ms),
from each peer's -Xlog:gc log in logs/<arm>-rep<N>/<peer>/gc-*.log. usage: python3 gcsum.py <results dir>"""
import glob, os, re, sys
d = sys.argv[1]
pat = re.compile(r'\[gc +\] GC\(\d+\) (Pause \w+(?: \((?:Normal|Mixed|Prepare Mixed|Concurrent Start)\))?).* ([0-9.]+)ms$')
print("| arm-rep | peer | pause kind | count | p50 (ms) | max (ms) |\n|---|---|---|---:|---:|---:|")
for run in sorted(glob.glob(os.path.join(d, 'logs', '*'))):
    for peer in sorted(glob.glob(os.path.join(run, 'n*'))):
        kinds = {}
        for f in glob.glob(os.path.join(peer, 'gc-*.log')):
            for line in open(f):
                m = pat.search(line)
                if m:
                    kinds.setdefault(m.group(1), []).append(float(m.group(2)))
        for k in sorted(kinds):
            v = sorted(kinds[k])
            print(f"| {os.path.basename(run)} | {os.path.basename(peer)} | {k} | {len(v)} | {v[(len(v) - 1) // 2]:.1f} | {v[-1]:.1f} |")
