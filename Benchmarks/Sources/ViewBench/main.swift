// Map view frame rate and memory (driver: Benchmarks/view.sh, peer: MapLibre Native via PyPI pymgl).
// Usage: ViewBench FILE.osm.pbf WORLD_DIR [frames] [--path] [--png DIR] [--only labels,style,flat,style-flat,plain,zoom,globe]
// Draws a pan of `frames` frames in a 1280×720 MapView: the centre goes once round a circle on
// the ground of 10 × frames / 2π pixels (at most 1,500), starting and ending at the view's
// place, so every frame is a new camera state and new tiles come into view as a pan brings
// them: Monaco at z15 tilted 45° (Mercator: ground composed from cached raster tiles, labels
// drawn per frame; again through the built-in day style, `MapView(camera:features:scheme:
// glyphRange:)`, labels in glyph ranges made from the Noto fonts; again without labels, as the
// peer draws it; `flat` and `style-flat`: both looking straight down) and the globe at z2 over the
// Natural Earth base (drawn directly). Prints
// the first frame's time (an empty tile cache), frames/s of process CPU time over the pan
// (clock(3): the machine is shared, CPU time is what a frame costs), and the resident set
// size at frame 0, half way and the end, and the median and worst frame's CPU time. Then the
// same pan zooming in from z14.3 to z15.7 (two tile zooms crossed: camera zoom 14.5 and 15.5),
// whose worst frame shows whether crossing a zoom stalls. `--path` prints the pan's centres
// (lon lat per line) instead, for the peer to follow; `--png DIR` writes every 25th frame of
// the labelled pans there, to look at; `--only` runs the scenarios named (on a loaded machine).
import Foundation
import GeoCore
import MapCamera
import MapData
import MapRenderer
import MapStyle
import MapView
import OSMImport

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: ViewBench FILE.osm.pbf WORLD_DIR [frames] [--path]")
    exit(2)
}
let frames = arguments.count > 3 ? Int(arguments[3]) ?? 60 : 60
let printsPath = arguments.contains("--path")
let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? Set(arguments[$0 + 1].split(separator: ",").map(String.init)) : nil }
func runs(_ scenario: String) -> Bool { only?.contains(scenario) ?? true }
let pngDirectory = arguments.firstIndex(of: "--png").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }

/// The centres of a pan: once round a circle of `radius` view pixels at the start's scale,
/// starting and ending at `start`.
func pan(from start: Coordinate, zoom: Double, frames: Int) -> [Coordinate] {
    let radius = min(10 * Double(frames) / (2 * .pi), 1_500) / (512 * exp2(zoom))
    let o = WebMercator.worldPoint(start)
    return (0..<frames).map { i in
        let a = 2 * Double.pi * Double(i) / Double(frames)
        let x = o.x + radius * (cos(a) - 1), y = o.y + radius * sin(a)
        return WebMercator.coordinate(worldX: x - x.rounded(.down), worldY: y)
    }
}

let monaco = (centre: Coordinate(uncheckedLatitude: 43.7384, longitude: 7.4246), zoom: 15.0)
let globe = (centre: Coordinate(uncheckedLatitude: 20, longitude: 10), zoom: 2.0)
if printsPath {
    for (name, place) in [("monaco", monaco), ("globe", globe)] {
        for c in pan(from: place.centre, zoom: place.zoom, frames: frames) { print(name, c.longitude, c.latitude) }
    }
    exit(0)
}

let features = MapFeatureIndex(try MapDataExtraction.read(url: URL(fileURLWithPath: arguments[1])).features)
let world = try WorldBase(countriesGeoJSON: Data(contentsOf: URL(fileURLWithPath: arguments[2] + "/ne_110m_countries.geojson")),
                          citiesGeoJSON: Data(contentsOf: URL(fileURLWithPath: arguments[2] + "/ne_cities.geojson")))
let fonts = [("/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", 0), ("/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf", 0),
             ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 0)]
let text = try TextRenderer(faces: fonts.map { try FontFace(data: [UInt8](Data(contentsOf: URL(fileURLWithPath: $0.0))), index: $0.1, name: $0.0) })
let glyphs = LocalGlyphRanges(faces: try fonts.map { try FontFace(data: [UInt8](Data(contentsOf: URL(fileURLWithPath: $0.0))), index: $0.1, name: $0.0) })

func cpuSeconds() -> Double { Double(clock()) / Double(CLOCKS_PER_SEC) }

/// Resident set size, MiB (Linux /proc/self/statm, 4 KiB pages).
func residentMiB() -> Double {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return .nan }
    let fields = statm.split(separator: " ")
    return fields.count > 1 ? (Double(fields[1]) ?? .nan) * 4096 / 1_048_576 : .nan
}

/// A manual instant: frames are drawn on the view's own time, not a wall clock.
struct Tick: InstantProtocol {
    var n: Int64
    func advanced(by d: Duration) -> Tick { Tick(n: n + d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000) }
    func duration(to other: Tick) -> Duration { .nanoseconds(other.n - n) }
    static func < (a: Tick, b: Tick) -> Bool { a.n < b.n }
}

@MainActor
func run(_ name: String, centre: Coordinate, zoom: Double, tilt: Double, projection: MapProjection, labels: Bool = true, zoomTo: Double? = nil, styled: Bool = false) throws {
    let camera = try CameraState(geoCenter: centre, zoomLevel: zoom, tilt: tilt, viewSize: ViewSize(width: 1280, height: 720), projection: projection)
    let view = styled ? try MapView<Tick>(camera: camera, features: features, scheme: .day, glyphRange: { glyphs.range(stack: $0, startingAt: $1) })
                      : try MapView<Tick>(camera: camera, features: features, worldBase: world)
    if !styled { view.text = labels ? text : nil }
    var now = Tick(n: 0)
    let first = cpuSeconds()
    view.render(at: now)
    let firstMs = (cpuSeconds() - first) * 1000
    var rss = [residentMiB()]
    let path = pan(from: centre, zoom: zoom, frames: frames)
    var times: [Double] = []
    times.reserveCapacity(frames)
    let t0 = cpuSeconds()
    for (i, c) in path.enumerated() {
        now = now.advanced(by: .milliseconds(16))
        let z = zoomTo.map { zoom + ($0 - zoom) * Double(i + 1) / Double(frames) }
        let t = cpuSeconds()
        try view.camera.set(CameraOptions(geoCenter: c, zoomLevel: z), animation: .none, at: now)
        guard view.render(at: now) || i == 0 else { fatalError("a pan must draw a frame") }
        times.append(cpuSeconds() - t)
        if i == frames / 2 { rss.append(residentMiB()) }
        if let pngDirectory, labels, i % 25 == 0, let frame = view.frame {
            let file = "\(pngDirectory)/\(name.prefix(while: { $0 != " " }))-\(styled ? "style-" : "")\(tilt == 0 ? "flat-" : "")\(zoomTo == nil ? "pan" : "zoom")-\(i).png"
            try Data(PNG.encode(frame)).write(to: URL(fileURLWithPath: file))
        }
    }
    let seconds = cpuSeconds() - t0
    rss.append(residentMiB())
    times.sort()
    print(String(format: "%@: first frame %.0f ms; pan of %d frames 1280x720, %.1f ms/frame, %.1f frames/s (CPU); median frame %.1f ms, worst %.1f ms; RSS %.0f / %.0f / %.0f MiB at frame 0 / %d / %d; %d tiles cached",
                 name, firstMs, frames, seconds * 1000 / Double(frames), Double(frames) / seconds, times[times.count / 2] * 1000, (times.last ?? 0) * 1000,
                 rss[0], rss[1], rss[2], frames / 2, frames, view.cachedTileCount))
}

if runs("labels") { try run("Monaco z15 tilt 45 (mercator)", centre: monaco.centre, zoom: monaco.zoom, tilt: 45, projection: .mercator) }
if runs("style") { try run("Monaco z15 tilt 45 (mercator), default style", centre: monaco.centre, zoom: monaco.zoom, tilt: 45, projection: .mercator, styled: true) }
if runs("flat") { try run("Monaco z15 flat (mercator)", centre: monaco.centre, zoom: monaco.zoom, tilt: 0, projection: .mercator) }
if runs("style-flat") { try run("Monaco z15 flat (mercator), default style", centre: monaco.centre, zoom: monaco.zoom, tilt: 0, projection: .mercator, styled: true) }
if runs("plain") { try run("Monaco z15 tilt 45 (mercator), no labels (as the peer)", centre: monaco.centre, zoom: monaco.zoom, tilt: 45, projection: .mercator, labels: false) }
if runs("zoom") { try run("Monaco z14.3 to z15.7 tilt 45 (mercator), zooming in", centre: monaco.centre, zoom: 14.3, tilt: 45, projection: .mercator, zoomTo: 15.7) }
if runs("globe") { try run("globe z2", centre: globe.centre, zoom: globe.zoom, tilt: 0, projection: .globe) }
