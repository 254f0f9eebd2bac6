//! Vertex fetch, vertex and geometry threads, primitive assembly and the draw (see `super`).
