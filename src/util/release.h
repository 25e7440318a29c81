// Frees a container's storage. `v = {}` does not: on a std::vector it
// assigns an empty initializer list and keeps the capacity (which left the
// histogram build's chunk keys, a lead order's permutation and a grouped
// table's weights allocated: docs/databases.md, "Memory").
#pragma once

namespace deid::util {

template <class Container>
void release(Container& c) {
  Container().swap(c);
}

}  // namespace deid::util
