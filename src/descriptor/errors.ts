// The descriptor error: a schema that cannot be laid out, values that do not fit their fields, or
// bytes that are not a well-formed descriptor. Code 'E_DESCRIPTOR'; the message names the
// descriptor and the field or byte range at fault.
import { TesseraError } from '../ir/errors.js';

export class DescriptorError extends TesseraError {
  readonly descriptor: string;
  constructor(descriptor: string, detail: string) {
    super('E_DESCRIPTOR', `descriptor '${descriptor}': ${detail}`);
    this.descriptor = descriptor;
  }
}
