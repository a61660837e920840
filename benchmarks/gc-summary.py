"""GC-log summary of a raft-kv results folder, from each peer's -Xlog:gc log in logs/<arm>-rep<N>/<peer>/gc-*.log:
per arm-repetition and peer, pauses by kind (count, p50, max ms); then, per arm-repetition and peer, the windows in
which the JVM was paused back to back (a young pause that began within 50 ms of the previous one's end: G1's mixed
phase, or collections Blade took in one window), with their length from the first pause's start to the last one's end.
usage: python3 benchmarks/gc-summary.py <results dir>"""
import glob, os, re, sys
d = sys.argv[1]
# the uptime decoration, after the wall-clock one the suite's logs carry since 2026-11-30 (older logs have none)
pat = re.compile(r'^(?:\[[0-9T:.+-]+\])?\[([0-9.]+)s\].*\[gc +\] GC\(\d+\) '
                 r'(Pause \w+(?: \((?:Normal|Mixed|Prepare Mixed|Concurrent Start)\))?).* ([0-9.]+)ms$')
CHAINED = 0.050
windows = []
print("| arm-rep | peer | pause kind | count | p50 (ms) | max (ms) |\n|---|---|---|---:|---:|---:|")
for run in sorted(glob.glob(os.path.join(d, 'logs', '*'))):
    for peer in sorted(glob.glob(os.path.join(run, 'n*'))):
        kinds, young = {}, []
        for f in glob.glob(os.path.join(peer, 'gc-*.log')):
            for line in open(f):
                m = pat.search(line)
                if m:
                    ms = float(m.group(3))
                    kinds.setdefault(m.group(2), []).append(ms)
                    if 'Young' in m.group(2):
                        end = float(m.group(1))
                        young.append((end - ms / 1000, end))
        for k in sorted(kinds):
            v = sorted(kinds[k])
            print(f"| {os.path.basename(run)} | {os.path.basename(peer)} | {k} | {len(v)} | {v[(len(v) - 1) // 2]:.1f} "
                  f"| {v[-1]:.1f} |")
        young.sort()
        chains, i = [], 0
        while i < len(young):
            start, end, k = young[i][0], young[i][1], 1
            while i + k < len(young) and young[i + k][0] - end < CHAINED:
                end, k = young[i + k][1], k + 1
            if k > 1:
                chains.append(((end - start) * 1000, k))
            i += k
        windows.append((os.path.basename(run), os.path.basename(peer), len(young), chains))
print("\n| arm-rep | peer | young pauses | back-to-back windows | of 3 or more pauses | p50 (ms) | max (ms) |\n"
      "|---|---|---:|---:|---:|---:|---:|")
for run, peer, n, chains in windows:
    v = sorted(c[0] for c in chains)
    print(f"| {run} | {peer} | {n} | {len(v)} | {sum(1 for c in chains if c[1] >= 3)} | "
          + (f"{v[(len(v) - 1) // 2]:.0f} | {v[-1]:.0f} |" if v else "- | - |"))
