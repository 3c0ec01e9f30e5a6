// Symbols the library exports (everything else is hidden: -fvisibility=hidden).
#pragma once
#define TX_EXPORT extern "C" __attribute__((visibility("default")))
