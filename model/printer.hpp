// Prints a syntax tree back as .d2c text that parses to the same tree.
#pragma once

#include <string>

#include "model/ast.hpp"

namespace ddsmc::model {

std::string to_text(const Term& t);
std::string to_text(const Atom& a);
std::string to_text(const BodyItem& item);
std::string to_text(const Rule& r);
std::string to_text(const Program& p);

}  // namespace ddsmc::model
