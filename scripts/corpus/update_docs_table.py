# Replaces the rows of docs/testing.md's corpus-failure table with the given rows file.
import sys

doc = 'docs/testing.md'
rows = open(sys.argv[1]).read().strip()
s = open(doc).read()
start = s.index('<!-- corpus-failures:start -->')
end = s.index('<!-- corpus-failures:end -->')
head = '<!-- corpus-failures:start -->\n| kernel | source | fails at | reason |\n|---|---|---|---|\n'
open(doc, 'w').write(s[:start] + head + (rows + '\n' if rows else '') + s[end:])
