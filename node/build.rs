//! The linker arguments a Node.js addon needs (on macOS, symbols left for
//! Node to provide).
fn main() {
    napi_build::setup();
}
