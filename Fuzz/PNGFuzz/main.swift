// libFuzzer harness for MapRenderer's PNG decoder: any bytes either decode or fail with a typed
// RenderError; a decoded image encodes and decodes back to the same pixels. Built and run by
// scripts/fuzz.sh.
import MapRenderer
import FuzzSupport

/// The fuzz target, for every input libFuzzer generates.
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let image: Pixmap
    do { image = try PNG.decode(Array(UnsafeBufferPointer(start: data, count: size))) } catch { return 0 } // typed (RenderError)
    let again = try? PNG.decode(PNG.encode(image, level: 1))
    precondition(again == image, "a decoded PNG encodes and decodes to the same pixels")
    return 0
}

runLibFuzzer(fuzzOneInput)
