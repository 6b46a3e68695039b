// The MPI datatype of a C++ integer type, so that a buffer's type and the
// datatype MPI is told can never disagree (a state id sent as
// MPI_UINT32_T would be cut to 32 bits without a word from anyone).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <type_traits>

namespace ddsmc::dist {

template <class T>
MPI_Datatype mpi_type() {
  static_assert(std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t> || std::is_same_v<T, int>,
                "mpi_type: no MPI datatype for this type");
  if constexpr (std::is_same_v<T, uint32_t>) return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, uint64_t>) return MPI_UINT64_T;
  else return MPI_INT;
}

}  // namespace ddsmc::dist
