// exitIf and assume on the interpreter and on the sim as an sm_80, against plain-JS references (exit_assume_cases.ts).
process.env['TESSERA_SIM_ARCH'] = 'sm_80';
import { exitAssumeSuite } from './exit_assume_cases.js';

exitAssumeSuite('sm_80');
