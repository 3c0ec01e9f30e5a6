// exitIf and assume on the interpreter and on the sim as an sm_90, against plain-JS references (exit_assume_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
import { exitAssumeSuite } from './exit_assume_cases.js';

exitAssumeSuite('sm_90');
