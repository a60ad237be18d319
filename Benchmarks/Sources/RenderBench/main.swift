// Offline rendering speed (driver: Benchmarks/render.sh, peer: Mapnik via python3-mapnik).
// The map's look is the default style (MapStyle's `DefaultStyle`, day): tiles and frames are
// drawn through StyleRendering's `Map` over the features tiled in memory (`FeatureMapSource`,
// what `geo tiles build` writes), as `geo tiles render --style default` and `geo serve` draw
// raster tiles. `legacy-…` modes draw with MapRenderer's `MapPainter` (MapView's default painter).
// Usage:
//   RenderBench frame FILE.osm.pbf [runs]         one 512² frame of Monaco at (256-px) z15, best of runs
//   RenderBench tiles FILE.osm.pbf ZMIN ZMAX [DIR] every 256² tile over the data's middle 2 km
//                                                  at each zoom; tiles/s rendering, PNG apart
//   RenderBench legacy-frame / legacy-tiles …      the same with the legacy painter
//   RenderBench export FILE.osm.pbf DIR            the features as GeoJSON per layer (for Mapnik)
//   RenderBench profile FILE.osm.pbf Z N           the style's tiles at zoom Z, N times over (to run
//                                                  under perf record or callgrind)
//   RenderBench layers FILE.osm.pbf Z              what each of the style's layers adds per tile at zoom Z
//   RenderBench style-frame STYLE.json ARCHIVE [OUT.png]  a style file's 512² frame of Monaco at MapLibre zoom 14
//                                                  over an MBTiles or PMTiles archive (its one vector
//                                                  source; glyphs and sprite at file:// URLs), timed as
//                                                  render.sh and style-frame.sh time MapLibre Native
//                                                  (pymgl) drawing the same file: median of 7, warm
// Zooms are the 256-pixel tile zooms Mapnik's are; the style draws tile zoom z at MapLibre zoom
// z − 1 (`StyleCamera(block:pixelRatio:)`). The style's decoded tiles and glyph ranges are kept
// by the `Map` across tiles (as a server's), warmed by one untimed render per zoom as Mapnik's
// GeoJSON is parsed on first use.
// Times are process CPU seconds (clock(3)): the machine is shared, CPU time is what one render costs.
import Foundation
import GeoCore
import MapData
import MapRenderer
import MapStyle
import OSMImport
import StyleRendering
import TileArchives

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: RenderBench frame|tiles|export FILE.osm.pbf …")
    exit(2)
}
let mode = arguments[1]
let monaco = Coordinate(uncheckedLatitude: 43.7384, longitude: 7.4246)

func cpuSeconds() -> Double { Double(clock()) / Double(CLOCKS_PER_SEC) }

if mode == "style-frame" {
    // pymgl's loop in render.sh: one warm render, then 7 frames whose centre moves by 1e-6°
    // (a new frame each time, the tiles kept), median CPU time.
    let style = try StyleDocument(data: Data(contentsOf: URL(fileURLWithPath: arguments[2])))
    guard let id = style.sources.first(where: { $0.value.type == "vector" })?.key else { fatalError("\(arguments[2]) has no vector source") }
    let archive: any MapSource = arguments[3].hasSuffix(".pmtiles") ? try PMTilesSource(path: arguments[3]) : try MBTilesSource(path: arguments[3])
    // Glyphs and sprite by the style's file:// (or relative) URLs, as `geo snapshot --style` reads them.
    let paths = StyleResourcePaths(base: nil, stylePath: arguments[2])
    let map = try StyleRendering.Map(style: style, sources: [id: archive]) { url in
        try paths.load(url) { path, _ in [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    }
    func frame(_ i: Int) throws -> Double {
        let camera = StyleCamera(longitude: monaco.longitude + (i % 2 == 1 ? 1e-6 : -1e-6), latitude: monaco.latitude, zoom: 14, width: 512, height: 512)
        let t0 = cpuSeconds()
        _ = try map.snapshot(camera: camera)
        return cpuSeconds() - t0
    }
    // The warm frame: its warnings (a property the spec does not know, a missing icon) said once.
    let warm = try map.snapshot(camera: StyleCamera(longitude: monaco.longitude, latitude: monaco.latitude, zoom: 14, width: 512, height: 512))
    for w in warm.warnings { FileHandle.standardError.write(Data("RenderBench: \(arguments[2]): \(w)\n".utf8)) }
    if arguments.count > 4 { try Data(PNG.encode(warm.image)).write(to: URL(fileURLWithPath: arguments[4])) }
    let times = try (0..<7).map(frame).sorted()
    print(String(format: "%@, frame 512x512 z15 Monaco: median %.1f ms CPU (of 7)", arguments[2], times[3] * 1000))
    exit(0)
}

let features = try MapDataExtraction.read(url: URL(fileURLWithPath: arguments[2])).features
let index = MapFeatureIndex(features)

func textRenderer() throws -> TextRenderer {
    let files = [("/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", 0), ("/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf", 0),
                 ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 0)]
    return try TextRenderer(faces: files.map { try FontFace(data: [UInt8](Data(contentsOf: URL(fileURLWithPath: $0.0))), index: $0.1, name: $0.0) })
}

/// The default style (day) over the features, as `geo tiles render --style default` draws it
/// (no POIs, no pedestrian features), labels in glyph ranges made from the local Noto fonts.
func styleMap() throws -> StyleRendering.Map {
    let faces = try NotoFonts.faces(environment: ProcessInfo.processInfo.environment) { path in
        FileManager.default.fileExists(atPath: path) ? [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) : nil
    }
    let glyphs = LocalGlyphRanges(faces: faces)
    var options = DefaultStyle.Options()
    options.poiClasses = []
    return try StyleRendering.Map(scheme: .day, options: options, data: try FeatureMapSource(features: features, name: "bench"),
                                  glyphRange: { glyphs.range(stack: $0, startingAt: $1) })
}

/// Draws `width × height` pixels centred on `center` at 256-pixel tile zoom `zoom` through the style.
func renderStyle(_ map: StyleRendering.Map, center: Coordinate, zoom: Double, width: Int, height: Int) throws -> Pixmap {
    let camera = StyleCamera(longitude: center.longitude, latitude: center.latitude, zoom: zoom - 1, width: width, height: height)
    let snapshot = try map.snapshot(camera: camera)
    if let w = snapshot.warnings.first { throw StyleRenderError("the style drew with warnings: \(w)") }
    return snapshot.image
}

/// Renders one image with the legacy painter (a tile: no attribution); returns it.
func render(center: Coordinate, zoom: Double, width: Int, height: Int, text: TextRenderer, tile: Bool = false) throws -> Pixmap {
    let view = try MercatorViewport(center: center, zoom: zoom, width: width, height: height)
    var painter = MapPainter(zoom: zoom)
    painter.text = text
    painter.drawsAttribution = !tile
    var canvas = try Canvas(width: width, height: height, background: painter.style.land)
    painter.paint(index, through: view, on: &canvas)
    return canvas.pixmap
}

let legacy = mode.hasPrefix("legacy-")
/// One image at `center`, through the style or (`legacy-…` modes) the legacy painter.
let draw: (Coordinate, Double, Int, Int) throws -> Pixmap
/// The style's map, when drawing through the style.
var styled: StyleRendering.Map?
if legacy {
    let text = try textRenderer()
    draw = { try render(center: $0, zoom: $1, width: $2, height: $3, text: text, tile: $2 == 256) }
} else if mode != "export" {
    let map = try styleMap()
    styled = map
    draw = { try renderStyle(map, center: $0, zoom: $1, width: $2, height: $3) }
} else {
    draw = { _, _, _, _ in fatalError("export draws nothing") }
}
let painterName = legacy ? "legacy painter" : "default style"

switch mode.replacingOccurrences(of: "legacy-", with: "") {
case "frame":
    let runs = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
    _ = try draw(monaco, 15, 512, 512)
    var best = Double.infinity, bestPNG = Double.infinity
    var bytes = 0
    for _ in 0..<runs {
        let t0 = cpuSeconds()
        let image = try draw(monaco, 15, 512, 512)
        let t1 = cpuSeconds()
        bytes = try PNG.encode(image, level: 6, filter: .none).count
        let t2 = cpuSeconds()
        best = min(best, t1 - t0)
        bestPNG = min(bestPNG, t2 - t1)
    }
    print(String(format: "%@, frame 512x512 z15 Monaco: render %.1f ms, PNG encode %.1f ms (%d bytes), %d features, best of %d", painterName, best * 1000, bestPNG * 1000, bytes, features.count, runs))
    if let map = styled {
        // Without labels: what render.sh's pymgl line draws.
        let camera = StyleCamera(longitude: monaco.longitude, latitude: monaco.latitude, zoom: 14, width: 512, height: 512)
        var ground = Double.infinity
        for _ in 0..<runs {
            let t0 = cpuSeconds()
            _ = try map.snapshot(camera: camera, layers: .ground)
            ground = min(ground, cpuSeconds() - t0)
        }
        print(String(format: "%@, frame 512x512 z15 Monaco without labels (symbol layers): render %.1f ms, best of %d", painterName, ground * 1000, runs))
    }
case "tiles":
    let zmin = Int(arguments[3]) ?? 14, zmax = Int(arguments[4]) ?? 17
    let dir = arguments.count > 5 ? URL(fileURLWithPath: arguments[5]) : nil
    // The tiles over a 2 km × 2 km square around the centre of Monaco.
    let box = try BoundingBox(south: 43.7294, west: 7.4122, north: 43.7474, east: 7.4370)
    for z in zmin...zmax {
        let tiles = try Tile.covering(box, zoom: z)
        // Warm, as the Mapnik side does (one untimed render at the centre at this zoom): glyph
        // shapes and masks are cached on both sides.
        _ = try draw(monaco, Double(z), 256, 256)
        var renderTime = 0.0, pngTime = 0.0, adaptiveTime = 0.0
        var bytes = 0, adaptiveBytes = 0
        for tile in tiles {
            let centre = MapPoint(x: (Double(tile.x) + 0.5) / Double(1 << z), y: (Double(tile.y) + 0.5) / Double(1 << z)).coordinate
            let t0 = cpuSeconds()
            let image = try draw(centre, Double(z), 256, 256)
            let t1 = cpuSeconds()
            // Mapnik's PNG settings: no row filter, zlib level 6, default strategy.
            let png = try PNG.encode(image, level: 6, filter: .none)
            let t2 = cpuSeconds()
            adaptiveBytes += try PNG.encode(image, level: 6, filter: .adaptive).count
            adaptiveTime += cpuSeconds() - t2
            renderTime += t1 - t0
            pngTime += t2 - t1
            bytes += png.count
            if let dir {
                let folder = dir.appendingPathComponent("\(z)/\(tile.x)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(png).write(to: folder.appendingPathComponent("\(tile.y).png"))
            }
        }
        let n = Double(tiles.count)
        print(String(format: "%@ z%d: %d tiles, render %.1f tiles/s (%.2f ms/tile), PNG encode %.2f ms/tile (%.1f kB), with PNG %.1f tiles/s; adaptive filters %.2f ms/tile (%.1f kB)",
                     painterName, z, tiles.count, n / renderTime, renderTime * 1000 / n, pngTime * 1000 / n, Double(bytes) / n / 1000, n / (renderTime + pngTime),
                     adaptiveTime * 1000 / n, Double(adaptiveBytes) / n / 1000))
        // The same tiles as geo tiles render draws them: 4 × 4 blocks cut into tiles.
        let t0 = cpuSeconds()
        for block in Metatile.blocks(covering: tiles) {
            let center = block.center, side = block.columns.count * Metatile.tileSize, high = block.rows.count * Metatile.tileSize
            _ = try block.tiles(of: try draw(center, Double(z), side, high))
        }
        let blockTime = cpuSeconds() - t0
        print(String(format: "%@ z%d: in 4x4 metatiles, render %.1f tiles/s (%.2f ms/tile)", painterName, z, n / blockTime, blockTime * 1000 / n))
    }
case "profile":
    let z = arguments.count > 3 ? Int(arguments[3]) ?? 14 : 14, repeats = arguments.count > 4 ? Int(arguments[4]) ?? 50 : 50
    let tiles = try Tile.covering(try BoundingBox(south: 43.7294, west: 7.4122, north: 43.7474, east: 7.4370), zoom: z)
    let t0 = cpuSeconds()
    for _ in 0..<repeats {
        for tile in tiles {
            let centre = MapPoint(x: (Double(tile.x) + 0.5) / Double(1 << z), y: (Double(tile.y) + 0.5) / Double(1 << z)).coordinate
            _ = try draw(centre, Double(z), 256, 256)
        }
    }
    print(String(format: "%@ z%d: %d tiles × %d, render %.2f ms/tile", painterName, z, tiles.count, repeats, (cpuSeconds() - t0) * 1000 / Double(tiles.count * repeats)))
case "layers":
    // What each layer costs at zoom Z: the tiles drawn with every layer, then with each layer
    // hidden in turn (a warm pass, then a timed one: the hidden layer's kept work is dropped).
    guard let map = styled else { fatalError("layers draws through the style") }
    let z = arguments.count > 3 ? Int(arguments[3]) ?? 15 : 15
    let tiles = try Tile.covering(try BoundingBox(south: 43.7294, west: 7.4122, north: 43.7474, east: 7.4370), zoom: z)
    func pass() throws -> Double {
        let t0 = cpuSeconds()
        for tile in tiles {
            _ = try draw(MapPoint(x: (Double(tile.x) + 0.5) / Double(1 << z), y: (Double(tile.y) + 0.5) / Double(1 << z)).coordinate, Double(z), 256, 256)
        }
        return (cpuSeconds() - t0) * 1000 / Double(tiles.count)
    }
    func timed() throws -> Double { _ = try pass(); return min(try pass(), try pass()) }
    let all = try timed()
    var costs: [(String, Double)] = []
    for layer in map.style.layers where layer.shows(atZoom: Double(z - 1)) {
        try map.setLayoutProperty("visibility", .string("none"), layer: layer.id)
        costs.append((layer.id, all - (try timed())))
        try map.setLayoutProperty("visibility", nil, layer: layer.id)
    }
    print(String(format: "z%d: %.2f ms/tile with every layer (%d tiles); ms/tile each layer adds:", z, all, tiles.count))
    for (id, cost) in costs.sorted(by: { $0.1 > $1.1 }) where cost >= 0.05 { print(String(format: "  %-28@ %6.2f", id, cost)) }
case "export":
    let dir = URL(fileURLWithPath: arguments[3])
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    func lonLat(_ p: MapPoint) -> String { let c = p.coordinate; return "[\(c.longitude),\(c.latitude)]" }
    func ring(_ r: [MapPoint]) -> String { "[" + r.map(lonLat).joined(separator: ",") + "]" }
    var files: [String: [String]] = [:]
    for f in features {
        let geometry: String
        switch f.geometry {
        case .points(let ps): geometry = "{\"type\":\"MultiPoint\",\"coordinates\":[\(ps.map(lonLat).joined(separator: ","))]}"
        case .lines(let ls): geometry = "{\"type\":\"MultiLineString\",\"coordinates\":[\(ls.map(ring).joined(separator: ","))]}"
        case .polygons(let ps): geometry = "{\"type\":\"MultiPolygon\",\"coordinates\":[\(ps.map { "[" + ([$0.exterior] + $0.holes).map(ring).joined(separator: ",") + "]" }.joined(separator: ","))]}"
        }
        var props: [String: Any] = [:]
        for p in f.properties {
            switch p.value {
            case .string(let s): props[p.key] = s
            case .int(let i): props[p.key] = i
            case .double(let d): props[p.key] = d
            case .bool(let b): props[p.key] = b
            }
        }
        props["minzoom"] = f.minZoom
        let json = String(decoding: try JSONSerialization.data(withJSONObject: props), as: UTF8.self)
        files[f.layer.rawValue, default: []].append("{\"type\":\"Feature\",\"properties\":\(json),\"geometry\":\(geometry)}")
    }
    for (layer, list) in files {
        try ("{\"type\":\"FeatureCollection\",\"features\":[\n" + list.joined(separator: ",\n") + "\n]}").write(to: dir.appendingPathComponent("\(layer).geojson"), atomically: true, encoding: .utf8)
    }
    print("exported \(features.count) features in \(files.count) layers to \(dir.path)")
default:
    print("unknown mode \(mode)")
    exit(2)
}
