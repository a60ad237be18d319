// Map view frame rate (driver: Benchmarks/view.sh, peer: MapLibre Native via PyPI pymgl).
// Usage: ViewBench FILE.osm.pbf WORLD_DIR [frames]
// Draws `frames` frames of a 1280×720 MapView, each after a small pan so every frame is drawn
// anew (a frame with nothing changed is not drawn at all): Monaco at z15 tilted 45°, and the
// globe at z2 over the Natural Earth base. Labels on. Prints frames/s of process CPU time
// (clock(3): the machine is shared, CPU time is what a frame costs) and the resident set
// size after the run.
import Foundation
import GeoCore
import MapCamera
import MapData
import MapRenderer
import MapView
import OSMImport

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: ViewBench FILE.osm.pbf WORLD_DIR [frames]")
    exit(2)
}
let features = MapFeatureIndex(try MapDataExtraction.read(url: URL(fileURLWithPath: arguments[1])).features)
let world = try WorldBase(countriesGeoJSON: Data(contentsOf: URL(fileURLWithPath: arguments[2] + "/ne_110m_countries.geojson")),
                          citiesGeoJSON: Data(contentsOf: URL(fileURLWithPath: arguments[2] + "/ne_cities.geojson")))
let frames = arguments.count > 3 ? Int(arguments[3]) ?? 60 : 60
let fonts = [("/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", 0), ("/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf", 0),
             ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 0)]
let text = try TextRenderer(faces: fonts.map { try FontFace(data: [UInt8](Data(contentsOf: URL(fileURLWithPath: $0.0))), index: $0.1, name: $0.0) })

func cpuSeconds() -> Double { Double(clock()) / Double(CLOCKS_PER_SEC) }

/// A manual instant: frames are drawn on the view's own time, not a wall clock.
struct Tick: InstantProtocol {
    var n: Int64
    func advanced(by d: Duration) -> Tick { Tick(n: n + d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000) }
    func duration(to other: Tick) -> Duration { .nanoseconds(other.n - n) }
    static func < (a: Tick, b: Tick) -> Bool { a.n < b.n }
}

@MainActor
func run(_ name: String, center: Coordinate, zoom: Double, tilt: Double, projection: MapProjection) throws {
    let camera = try CameraState(geoCenter: center, zoomLevel: zoom, tilt: tilt, viewSize: ViewSize(width: 1280, height: 720), projection: projection)
    let view = try MapView<Tick>(camera: camera, features: features, worldBase: world)
    view.text = text
    var now = Tick(n: 0)
    view.render(at: now) // warm-up: caches, first allocation
    view.camera.beginGesture()
    let t0 = cpuSeconds()
    for i in 0..<frames {
        now = now.advanced(by: .milliseconds(16))
        let dx = i % 2 == 0 ? 4.0 : -4.0 // a pan back and forth: the same area, a new frame each time
        view.camera.apply(.pan(from: ScreenPoint(x: 640, y: 360), to: ScreenPoint(x: 640 + dx, y: 360)), at: now)
        guard view.render(at: now) else { fatalError("a pan must draw a frame") }
    }
    let seconds = cpuSeconds() - t0
    print(String(format: "%@: %d frames 1280x720, %.1f ms/frame, %.1f frames/s (CPU)", name, frames, seconds * 1000 / Double(frames), Double(frames) / seconds))
}

try run("Monaco z15 tilt 45 (mercator)", center: Coordinate(uncheckedLatitude: 43.7384, longitude: 7.4246), zoom: 15, tilt: 45, projection: .mercator)
try run("globe z2", center: Coordinate(uncheckedLatitude: 20, longitude: 10), zoom: 2, tilt: 0, projection: .globe)
