//! `uniffi-bindgen`: generates the Kotlin, Swift and Python sources from the
//! built library (`generate --library target/debug/libmrtr_uniffi.so …`).

fn main() {
    uniffi::uniffi_bindgen_main()
}
