//! Classification without an allocator (in progress).
