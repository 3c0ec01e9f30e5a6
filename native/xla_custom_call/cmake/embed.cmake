# cmake -DOUT=file.cpp -DSYMBOL=name -DARCH=80 -DCUBIN=0|1 -DIN=file -P embed.cmake
# Writes the bytes of IN as `extern const tx::EmbeddedImage SYMBOL` for the library to load.
file(READ ${IN} _hex HEX)
string(LENGTH "${_hex}" _len)
math(EXPR _size "${_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
string(REGEX REPLACE "((0x..,){32})" "\\1\n" _bytes "${_bytes}")
file(WRITE ${OUT} "// Generated from ${IN} by embed.cmake.\n#include \"embedded.h\"\nnamespace {\nconst unsigned char kBytes[] = {\n${_bytes}\n};\n}\nnamespace tx {\nextern const EmbeddedImage ${SYMBOL} = {${CUBIN} != 0, ${ARCH}, kBytes, ${_size}};\n}\n")
