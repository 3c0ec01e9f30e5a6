// C declarations generated from descriptor schemas: the header the C library compiles against is
// printed from the same table as the TypeScript packer (native/xla_custom_call/include/
// tessera_descriptors.h is this text; a test keeps the two equal).
import { isEnum, type EnumDef, type ScalarKind, type StructLayout } from './schema.js';

const C_TYPES: Record<ScalarKind, string> = {
  i8: 'int8_t', u8: 'uint8_t', i16: 'int16_t', u16: 'uint16_t', i32: 'int32_t', u32: 'uint32_t',
  i64: 'int64_t', u64: 'uint64_t', f32: 'float', f64: 'double',
};

/** `enum Name { Name_A = 0, ... };` (values prefixed with the enum's name: C enumerators share one scope). */
export function cEnum(e: EnumDef): string {
  return `enum ${e.enum} {\n${e.values.map((v, i) => `  ${e.enum}_${v} = ${i},`).join('\n')}\n};\n`;
}

/** The struct as C declares it, with its size and offsets checked by the C compiler. */
export function cStruct(s: StructLayout): string {
  const lines = s.fields.map((f) => {
    const t = isEnum(f.type) ? `enum ${f.type.enum}` : C_TYPES[f.type];
    return `  ${t} ${f.name}${f.count !== undefined ? `[${f.count}]` : ''};  /* offset ${f.offset} */`;
  });
  const asserts = [
    `TESSERA_DESC_ASSERT(sizeof(struct ${s.name}) == ${s.size}, "${s.name} size");`,
    ...s.fields.map((f) => `TESSERA_DESC_ASSERT(offsetof(struct ${s.name}, ${f.name}) == ${f.offset}, "${s.name}.${f.name} offset");`),
  ];
  return `struct ${s.name} {\n${lines.join('\n')}\n};\n${asserts.join('\n')}\n`;
}

/** A self-contained C/C++ header with the given enums and structs. */
export function cHeader(guard: string, comment: string, enums: readonly EnumDef[], structs: readonly StructLayout[]): string {
  return [
    `/* ${comment}\n * Generated from src/descriptor (node scripts/gen-descriptors.mjs); do not edit by hand. */`,
    `#ifndef ${guard}\n#define ${guard}\n`,
    '#include <stddef.h>\n#include <stdint.h>\n',
    '#ifdef __cplusplus\n#define TESSERA_DESC_ASSERT(c, m) static_assert(c, m)\nextern "C" {\n#else\n#define TESSERA_DESC_ASSERT(c, m) _Static_assert(c, m)\n#endif\n',
    ...enums.map(cEnum),
    ...structs.map(cStruct),
    '#ifdef __cplusplus\n}\n#endif\n#undef TESSERA_DESC_ASSERT\n',
    `#endif /* ${guard} */\n`,
  ].join('\n');
}
