// devicePrint / deviceAssert on the sim as an sm_80 (the default) vs the interpreter: device_print_cases.ts.
import { devicePrintCases } from './device_print_cases.js';

devicePrintCases('sm_80');
