// The tsim::Module the parser returns: the decoded program plus module variables.
#pragma once
#include "ptx_ir.h"

namespace tsim {

class PtxModule : public Module {
 public:
  Program prog;
  std::vector<KernelInfo> kernelList;
  std::vector<GlobalVar> globalList;
  std::vector<std::vector<uint8_t>> globalInit;  // initial bytes per global (empty = zeros)
  std::vector<unsigned> globalAlign;
  bool bound = false;

  const std::vector<KernelInfo>& kernels() const override { return kernelList; }
  const std::vector<GlobalVar>& globals() const override { return globalList; }
  bool bindGlobals(GlobalMemory& mem, std::string& log) override;
  int findFunction(const std::string& name) const;
};

}  // namespace tsim
