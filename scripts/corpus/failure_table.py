# Prints docs/testing.md's corpus-failure rows from a run's report:
#   TESSERA_CORPUS_REPORT=/tmp/corpus.json npx vitest run test/corpus
#   python3 scripts/corpus/failure_table.py /tmp/corpus.json [diagnoses.json]
# A load/launch row quotes the sim's message; a result row names the first wrong output and, when
# the diagnoses file has an entry for the kernel, the cause.
import json
import os
import re
import sys

report = json.load(open(sys.argv[1]))
diag = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else {}
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'test', 'corpus', 'kernels')
for name in sorted(report):
    o = report[name]
    if o['stage'] == 'pass':
        continue
    src = json.load(open(os.path.join(root, name, 'case.json')))['source']
    src = 'Triton' if src.startswith('triton') else 'nvcc'
    msg = o['message']
    if o['stage'] in ('load', 'launch'):
        m = re.search(r"line \d+: (unsupported instruction '[^ ']+)", msg) or re.search(r'line \d+: ([^\n|`]{1,80})', msg)
        quote = m.group(1) if m else msg.splitlines()[0][:80]
        rest = msg[msg.find(quote) + len(quote):].splitlines()[0][:140] if quote in msg else ''
        reason = f'`{quote}`{rest}'.replace('|', '\\|')
    else:
        first = msg.splitlines()[0]
        m = re.match(r'(arg \d+ \([^,]+), ', first)
        quote = m.group(1) if m else first[:40]
        cause = diag.get(name, '')
        extra = re.sub(r'^arg \d+ \([^)]*\): ', '', first)[:110]
        reason = f'`{quote}` wrong: {cause + "; " if cause else ""}{extra}'.replace('|', '\\|')
    print(f'| `{name}` | {src} | {o["stage"]} | {reason} |')
