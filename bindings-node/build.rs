//! Links the Node-API symbols the addon takes from the running node.
fn main() {
    napi_build::setup();
}
