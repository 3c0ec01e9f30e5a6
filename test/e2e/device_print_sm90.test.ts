// devicePrint / deviceAssert on the sim as an sm_90 (TESSERA_SIM_ARCH, read at cuInit, so it is set
// before anything opens the sim) vs the interpreter: device_print_cases.ts.
process.env['TESSERA_SIM_ARCH'] = 'sm_90';
const { devicePrintCases } = await import('./device_print_cases.js');

devicePrintCases('sm_90');
