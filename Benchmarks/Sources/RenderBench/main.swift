// Offline rendering speed (driver: Benchmarks/render.sh, peer: Mapnik via python3-mapnik).
// Usage:
//   RenderBench frame FILE.osm.pbf [runs]         one 512² frame of Monaco at z15, best of runs
//   RenderBench tiles FILE.osm.pbf ZMIN ZMAX [DIR] every 256² tile over the data's middle 2 km
//                                                  at each zoom; tiles/s rendering, PNG apart
//   RenderBench export FILE.osm.pbf DIR            the features as GeoJSON per layer (for Mapnik)
//   RenderBench profile FILE.osm.pbf Z N           the same tiles at zoom Z, N times over (to run
//                                                  under perf record or callgrind)
// Times are process CPU seconds (clock(3)): the machine is shared, CPU time is what one render costs.
import Foundation
import GeoCore
import MapData
import MapRenderer
import OSMImport

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: RenderBench frame|tiles|export FILE.osm.pbf …")
    exit(2)
}
let mode = arguments[1]
let features = try MapDataExtraction.read(url: URL(fileURLWithPath: arguments[2])).features
let index = MapFeatureIndex(features)
let monaco = Coordinate(uncheckedLatitude: 43.7384, longitude: 7.4246)

func cpuSeconds() -> Double { Double(clock()) / Double(CLOCKS_PER_SEC) }

func textRenderer() throws -> TextRenderer {
    let files = [("/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", 0), ("/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf", 0),
                 ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 0)]
    return try TextRenderer(faces: files.map { try FontFace(data: [UInt8](Data(contentsOf: URL(fileURLWithPath: $0.0))), index: $0.1, name: $0.0) })
}

/// Renders one image (a tile: no attribution); returns it.
func render(center: Coordinate, zoom: Double, width: Int, height: Int, text: TextRenderer, tile: Bool = false) throws -> Pixmap {
    let view = try MercatorViewport(center: center, zoom: zoom, width: width, height: height)
    var painter = MapPainter(zoom: zoom)
    painter.text = text
    painter.drawsAttribution = !tile
    var canvas = try Canvas(width: width, height: height, background: painter.style.land)
    painter.paint(index, through: view, on: &canvas)
    return canvas.pixmap
}

switch mode {
case "frame":
    let runs = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
    let text = try textRenderer()
    var best = Double.infinity, bestPNG = Double.infinity
    var bytes = 0
    for _ in 0..<runs {
        let t0 = cpuSeconds()
        let image = try render(center: monaco, zoom: 15, width: 512, height: 512, text: text)
        let t1 = cpuSeconds()
        bytes = try PNG.encode(image, level: 6, filter: .none).count
        let t2 = cpuSeconds()
        best = min(best, t1 - t0)
        bestPNG = min(bestPNG, t2 - t1)
    }
    print(String(format: "frame 512x512 z15 Monaco: render %.1f ms, PNG encode %.1f ms (%d bytes), %d features, best of %d", best * 1000, bestPNG * 1000, bytes, features.count, runs))
case "tiles":
    let zmin = Int(arguments[3]) ?? 14, zmax = Int(arguments[4]) ?? 17
    let dir = arguments.count > 5 ? URL(fileURLWithPath: arguments[5]) : nil
    let text = try textRenderer()
    // The tiles over a 2 km × 2 km square around the centre of Monaco.
    let box = try BoundingBox(south: 43.7294, west: 7.4122, north: 43.7474, east: 7.4370)
    for z in zmin...zmax {
        let tiles = try Tile.covering(box, zoom: z)
        // Warm, as the Mapnik side does (one untimed render at the centre at this zoom): glyph
        // shapes and masks are cached on both sides.
        _ = try render(center: monaco, zoom: Double(z), width: 256, height: 256, text: text, tile: true)
        var renderTime = 0.0, pngTime = 0.0, adaptiveTime = 0.0
        var bytes = 0, adaptiveBytes = 0
        for tile in tiles {
            let centre = MapPoint(x: (Double(tile.x) + 0.5) / Double(1 << z), y: (Double(tile.y) + 0.5) / Double(1 << z)).coordinate
            let t0 = cpuSeconds()
            let image = try render(center: centre, zoom: Double(z), width: 256, height: 256, text: text, tile: true)
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
        print(String(format: "z%d: %d tiles, render %.1f tiles/s (%.2f ms/tile), PNG encode %.2f ms/tile (%.1f kB), with PNG %.1f tiles/s; adaptive filters %.2f ms/tile (%.1f kB)",
                     z, tiles.count, n / renderTime, renderTime * 1000 / n, pngTime * 1000 / n, Double(bytes) / n / 1000, n / (renderTime + pngTime),
                     adaptiveTime * 1000 / n, Double(adaptiveBytes) / n / 1000))
        // The same tiles as geo tiles render draws them: 4 × 4 blocks cut into tiles.
        let t0 = cpuSeconds()
        for block in Metatile.blocks(covering: tiles) {
            let view = try block.viewport()
            var painter = MapPainter(zoom: Double(z))
            painter.text = text
            painter.drawsAttribution = false
            var canvas = try Canvas(width: view.width, height: view.height, background: painter.style.land)
            painter.paint(index, through: view, on: &canvas)
            _ = try block.tiles(of: canvas.pixmap)
        }
        let blockTime = cpuSeconds() - t0
        print(String(format: "z%d: in 4x4 metatiles, render %.1f tiles/s (%.2f ms/tile)", z, n / blockTime, blockTime * 1000 / n))
    }
case "profile":
    let z = arguments.count > 3 ? Int(arguments[3]) ?? 14 : 14, repeats = arguments.count > 4 ? Int(arguments[4]) ?? 50 : 50
    let text = try textRenderer()
    let tiles = try Tile.covering(try BoundingBox(south: 43.7294, west: 7.4122, north: 43.7474, east: 7.4370), zoom: z)
    let t0 = cpuSeconds()
    for _ in 0..<repeats {
        for tile in tiles {
            let centre = MapPoint(x: (Double(tile.x) + 0.5) / Double(1 << z), y: (Double(tile.y) + 0.5) / Double(1 << z)).coordinate
            _ = try render(center: centre, zoom: Double(z), width: 256, height: 256, text: text, tile: true)
        }
    }
    print(String(format: "z%d: %d tiles × %d, render %.2f ms/tile", z, tiles.count, repeats, (cpuSeconds() - t0) * 1000 / Double(tiles.count * repeats)))
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
