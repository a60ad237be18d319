import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapData
import OSMImport
import ZlibCompression

/// Zoom 14 world units: one tile is 1/16384 of the world, 4096 tile units.
private let z14Tile = 1.0 / 16_384

/// A closed square ring in world units centred at (cx, cy) with half-side `h`.
private func square(cx: Double, cy: Double, h: Double) -> [MapPoint] {
    [MapPoint(x: cx - h, y: cy - h), MapPoint(x: cx + h, y: cy - h), MapPoint(x: cx + h, y: cy + h), MapPoint(x: cx - h, y: cy + h), MapPoint(x: cx - h, y: cy - h)]
}

private func feature(_ layer: MapLayer, _ geometry: MapGeometry, minZoom: Int = 0) -> MapFeature {
    MapFeature(layer: layer, id: 1, source: .way, geometry: geometry, properties: [MapProperty("class", .string("x"))], minZoom: minZoom)
}

/// The decoded geometry of the one feature of layer `name` in a tile.
private func geometry(_ tile: EncodedTile, _ name: String) throws -> TileGeometry {
    let decoded = try VectorTile(decoding: tile.data)
    let layer = try #require(decoded.layers.first { $0.name == name })
    return try layer.geometry(of: try #require(layer.features.first))
}

@Test func polygonOnATileCorner_isClippedToEachTileWithItsBuffer() throws {
    // A square of 1000 × 1000 tile units centred on the corner shared by tiles (8192, 8192)…(8193, 8193).
    let corner = 8193 * z14Tile
    let poly = MapPolygon(exterior: square(cx: corner, cy: corner, h: 500 * z14Tile / 4096))
    let tiler = try MapTiler(features: [feature(.building, .polygons([poly]))], options: TilingOptions(minZoom: 14, maxZoom: 14, buffer: 64))
    let tiles = try tiler.tiles(atZoom: 14)
    #expect(Set(tiles.map { "\($0.x)/\($0.y)" }) == ["8192/8192", "8193/8192", "8192/8193", "8193/8193"])
    for tile in tiles {
        guard case .polygons(let polygons) = try geometry(tile, "building") else { Issue.record("not a polygon"); continue }
        let ring = try #require(polygons.first?.first)
        // Each tile holds the 500-unit quarter inside it plus 64 units of buffer: 564 × 564.
        #expect(TileGeometry.signedArea(ring) == 564 * 564, "tile \(tile.x)/\(tile.y)")
        for p in ring { #expect((-64...4160).contains(p.x) && (-64...4160).contains(p.y)) }
    }
}

@Test func lineAcrossThreeTiles_isCutAtTheBufferedEdges() throws {
    let y = (5000.5 + 2000) * z14Tile / 4096
    let line = [MapPoint(x: 100.5 * z14Tile, y: y), MapPoint(x: 102.5 * z14Tile, y: y)]
    let tiler = try MapTiler(features: [feature(.transportation, .lines([line]))], options: TilingOptions(minZoom: 14, maxZoom: 14, buffer: 64))
    let tiles = try tiler.tiles(atZoom: 14)
    #expect(tiles.map(\.x).sorted() == [100, 101, 102])
    let middle = try #require(tiles.first { $0.x == 101 })
    guard case .lines(let lines) = try geometry(middle, "transportation") else { Issue.record("not a line"); return }
    #expect(lines.count == 1)
    #expect(lines.first?.map(\.x).sorted() == [-64, 4160])
}

@Test func belowMaxZoom_tinyAreasDropAndZigzagsSimplify() throws {
    // At z13 one pixel (of 256) is 1/(8192 × 256) of the world. A 1.5 px square (2.25 px², under
    // the 4 px² rule) drops below maxzoom and stays at maxzoom.
    let px13 = 1.0 / (8192 * 256)
    let small = MapPolygon(exterior: square(cx: 0.5 + 100 * px13, cy: 0.5 + 100 * px13, h: 0.75 * px13))
    // A line with a 0.2 px zig-zag: two points below maxzoom, all of them at maxzoom.
    let zig = (0...10).map { (i: Int) -> MapPoint in
        let bump: Double = i % 2 == 0 ? 0 : 0.2
        return MapPoint(x: 0.5 + Double(10 + i * 10) * px13, y: 0.5 + (10 + bump) * px13)
    }
    let tiler = try MapTiler(features: [feature(.building, .polygons([small])), feature(.transportation, .lines([zig]))],
                             options: TilingOptions(minZoom: 13, maxZoom: 14))
    let z13 = try #require(try tiler.tiles(atZoom: 13).first)
    let decoded13 = try VectorTile(decoding: z13.data)
    #expect(!decoded13.layers.contains { $0.name == "building" })
    guard case .lines(let lines13) = try geometry(z13, "transportation") else { Issue.record("no line"); return }
    #expect(lines13.first?.count == 2)
    let z14 = try tiler.tiles(atZoom: 14)
    #expect(z14.contains { (try? VectorTile(decoding: $0.data).layers.contains { $0.name == "building" }) == true })
    let line14 = try #require(z14.first { (try? VectorTile(decoding: $0.data).layers.contains { $0.name == "transportation" }) == true })
    guard case .lines(let lines14) = try geometry(line14, "transportation") else { Issue.record("no line"); return }
    #expect(lines14.first?.count == 11)
}

@Test func tilesOfAZoom_comeInTileIDOrder_andFeaturesWaitForTheirMinZoom() throws {
    let points = (0..<50).map { MapPoint(x: 0.1 + Double($0) * 0.016, y: 0.3 + Double($0 % 7) * 0.05) }
    let tiler = try MapTiler(features: [feature(.poi, .points(points), minZoom: 6)], options: TilingOptions(minZoom: 0, maxZoom: 8, parallelism: 2))
    #expect(try tiler.tiles(atZoom: 5).isEmpty)
    let tiles = try tiler.tiles(atZoom: 6)
    let ids = tiles.map { PMTiles.tileID(zoom: $0.zoom, x: $0.x, y: $0.y) }
    #expect(ids == ids.sorted())
    let total = try tiles.reduce(0) { sum, t in try sum + VectorTile(decoding: t.data).layers.reduce(0) { $0 + $1.features.count } }
    #expect(total >= 1 && total <= 50)
}

@Test(.onOwnThread) func monacoTiles_decodeWithOurReader() throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let set = try MapDataExtraction.read(url: url)
    let tiler = try MapTiler(features: set.features, options: TilingOptions(minZoom: 12, maxZoom: 14, parallelism: 2, compressesTiles: true))
    var z14Features = 0
    for z in 12...14 {
        for tile in try tiler.tiles(atZoom: z) {
            let decoded = try VectorTile(decoding: Gzip.decompress(tile.data, limit: VectorTile.defaultInflateLimit))
            for layer in decoded.layers {
                #expect(MapLayer(rawValue: layer.name) != nil)
                for f in layer.features { _ = try layer.geometry(of: f) }
                if z == 14 { z14Features += layer.features.count }
            }
        }
    }
    // Every building (over 10 000 in the extract) is in some z14 tile, many in two.
    #expect(z14Features > 20_000)
}

@Test func selfIntersectingPolygonAndAbsurdTags_giveTilesNotCrashes() throws {
    var e = MapFeatureExtractor()
    // A bow-tie ring (edges cross) tagged as a building with absurd values.
    let corners: [(Int64, Double, Double)] = [(1, 43.70, 7.40), (2, 43.71, 7.41), (3, 43.70, 7.41), (4, 43.71, 7.40)]
    for (id, lat, lon) in corners {
        try e.addNode(id: id, latitudeE7: Int32(lat * 1e7), longitudeE7: Int32(lon * 1e7), tags: [String: String]())
    }
    try e.addWay(id: 10, nodeRefs: [1, 2, 3, 4, 1], tags: ["building": "yes", "height": "1e308", "building:levels": "-7",
                                                        "layer": "99999999999999999999", "name": String(repeating: "x", count: 10_000)])
    try e.addWay(id: 11, nodeRefs: [1, 2, 3], tags: ["highway": "primary", "layer": "nan", "oneway": "sideways", "admin_level": "1e99"])
    e.addRelation(id: 12, members: [OSMMember(type: .relation, ref: 12, role: "outer")], tags: ["type": "multipolygon", "landuse": "forest"])
    let set = try e.finish()
    let building = try #require(set.features.first { $0.layer == .building })
    #expect(building["render_height"] == nil, "1e308 m is not a height")
    #expect(set.statistics.brokenRelations == 1, "a relation that is its own member has no rings")
    let tiler = try MapTiler(features: set.features, options: TilingOptions(minZoom: 10, maxZoom: 14))
    for z in 10...14 {
        for tile in try tiler.tiles(atZoom: z) {
            let decoded = try VectorTile(decoding: tile.data)
            for layer in decoded.layers { for f in layer.features { _ = try layer.geometry(of: f) } }
        }
    }
}

@Test func tileFeatures_comeBackInWorldUnitsWithinATileUnit() throws {
    let corner = 8193 * z14Tile
    let poly = MapPolygon(exterior: square(cx: corner + 0.3 * z14Tile, cy: corner + 0.3 * z14Tile, h: 0.1 * z14Tile))
    var source = feature(.park, .polygons([poly]))
    source.properties.append(MapProperty("name", .string("Parc")))
    let tiler = try MapTiler(features: [source], options: TilingOptions(minZoom: 14, maxZoom: 14))
    let tile = try #require(try tiler.tiles(atZoom: 14).first)
    let (decoded, geometries) = try VectorTile.decodedWithGeometries(stored: tile.data)
    let layer = try #require(decoded.layers.first)
    let back = try #require(layer.mapFeatures(zoom: 14, x: tile.x, y: tile.y, geometries: geometries[0]).first)
    #expect(back.layer == .park && back.id == 1 && back.source == .way)
    #expect(back["name"] == .string("Parc"))
    guard case .polygons(let polygons) = back.geometry else { Issue.record("not a polygon"); return }
    let unit = z14Tile / 4096
    for (a, b) in zip(polygons[0].exterior, poly.exterior) {
        #expect(abs(a.x - b.x) <= unit && abs(a.y - b.y) <= unit)
    }
}

@Test(.onOwnThread) func tiles_areTheSameBytesOnOneThreadOrThree_inBlocksOfOneTileOr16() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    let set = try MapDataExtraction.read(url: url)
    let one = try MapTiler(features: set.features, options: TilingOptions(minZoom: 8, maxZoom: 14, parallelism: 1))
    let three = try MapTiler(features: set.features, options: TilingOptions(minZoom: 8, maxZoom: 14, parallelism: 3, blockSize: 1))
    for z in [8, 12, 14] {
        let a = try one.tiles(atZoom: z), b = try three.tiles(atZoom: z)
        #expect(a.count > 0 && a == b, "zoom \(z)")
    }
}

@Test func smallBuildings_belowTheLastZoom_mergeIntoOneFeatureOfTheirUnion() throws {
    // Two 2 × 2 px squares (z13 pixels) a quarter pixel apart, in the middle of tile 13/4000/3000:
    // at z13 one `building` feature, their union with the gap closed, 4.25 × 2 = 8.5 px²;
    // at z14 (the last zoom) the two buildings as they are, with their ids.
    let pixel = 1.0 / (8192 * 256)
    let cx = (4000 + 0.5) / 8192, cy = (3000 + 0.5) / 8192
    func building(_ id: Int64, dx: Double) -> MapFeature {
        MapFeature(layer: .building, id: id, source: .way, geometry: .polygons([MapPolygon(exterior: square(cx: cx + dx * pixel, cy: cy, h: pixel))]),
                   properties: [MapProperty("class", .string("building")), MapProperty("render_height", .double(Double(id)))], minZoom: 13)
    }
    let tiler = try MapTiler(features: [building(1, dx: -1.125), building(2, dx: 1.125)], options: TilingOptions(minZoom: 13, maxZoom: 14))
    let z13 = try tiler.tiles(atZoom: 13)
    #expect(z13.count == 1)
    let tile13 = try #require(z13.first)
    let (decoded, geometries) = try VectorTile.decodedWithGeometries(stored: tile13.data)
    let index = try #require(decoded.layers.firstIndex { $0.name == "building" })
    let layer = decoded.layers[index]
    #expect(layer.features.count == 1)
    #expect(layer.features.first?.id == nil)
    let merged = try #require(layer.mapFeatures(zoom: 13, x: 4000, y: 3000, geometries: geometries[index]).first)
    #expect(merged.properties == [MapProperty("class", .string("building"))])
    guard case .polygons(let polygons) = merged.geometry else { Issue.record("not a polygon"); return }
    #expect(polygons.count == 1)
    // Shoelace area in px²; the outline follows half-pixel cells, simplified at half a pixel.
    let ring = try #require(polygons.first?.exterior)
    var twice = 0.0
    for i in 0..<(ring.count - 1) { twice += (ring[i].x - cx) * (ring[i + 1].y - cy) - (ring[i + 1].x - cx) * (ring[i].y - cy) }
    #expect(abs(abs(twice / 2) / (pixel * pixel) - 8.5) <= 1.5, "area \(abs(twice / 2) / (pixel * pixel)) px²")
    let z14 = try #require(try tiler.tiles(atZoom: 14).first)
    let layer14 = try #require(try VectorTile(decoding: z14.data).layers.first { $0.name == "building" })
    #expect(layer14.features.count == 2)
    #expect(layer14.features.allSatisfy { $0.id != nil })
}

@Test func droppedForSize_isCountedPerLayer_onceAZoom_andNothingAtTheLastZoom() throws {
    // In tile 13/4000/3000 (z13 pixels): two 1.5 × 1.5 px parks (2.25 px², under 4 px²), a road
    // 0.5 px long (under 1 px), a lone 1.5 × 1.5 px building (merged alone: an area under 4 px²)
    // and two 2 × 2 px buildings a quarter pixel apart (merged: 8.5 px², kept).
    let pixel = 1.0 / (8192 * 256)
    let cx = (4000 + 0.5) / 8192, cy = (3000 + 0.5) / 8192
    func at(_ dx: Double, _ dy: Double, h: Double) -> MapGeometry {
        .polygons([MapPolygon(exterior: square(cx: cx + dx * pixel, cy: cy + dy * pixel, h: h * pixel))])
    }
    let features = [
        feature(.park, at(-60, -60, h: 0.75)), feature(.park, at(60, 60, h: 0.75)),
        feature(.transportation, .lines([[MapPoint(x: cx, y: cy + 30 * pixel), MapPoint(x: cx + 0.5 * pixel, y: cy + 30 * pixel)]])),
        feature(.building, at(-40, 40, h: 0.75)),
        feature(.building, at(-1.125, 0, h: 1)), feature(.building, at(1.125, 0, h: 1)),
    ]
    let tiler = try MapTiler(features: features, options: TilingOptions(minZoom: 13, maxZoom: 14, parallelism: 2))
    var z13 = GeneralisationDrops()
    for block in tiler.blocks(atZoom: 13) { _ = try tiler.tiles(in: block, drops: &z13) }
    #expect(z13.features == [.park: 2, .transportation: 1])
    #expect(z13.mergedAreas == [.building: 1])
    var z14 = GeneralisationDrops()
    for block in tiler.blocks(atZoom: 14) { _ = try tiler.tiles(in: block, drops: &z14) }
    #expect(z14 == GeneralisationDrops())
}

/// The tiles of a list with each run written out tile by tile (PMTiles tile-id order).
private func expanded(_ tiles: [EncodedTile]) throws -> [EncodedTile] {
    try tiles.flatMap { tile in
        let first = PMTiles.tileID(zoom: tile.zoom, x: tile.x, y: tile.y)
        return try (0..<UInt64(tile.runLength)).map { i in
            let (z, x, y) = try PMTiles.tile(id: first + i)
            return EncodedTile(zoom: z, x: x, y: y, data: tile.data)
        }
    }
}

/// Issue 36: the squares a polygon fills are found along its outline (`TileFill`) and given as
/// runs, and the tiles are those of cutting every tile: a C-shaped polygon with a hole and a
/// line across it, cut at zooms 4…7 in blocks of one tile (blocks and runs everywhere) and in
/// one block of the whole world (every tile cut, fill tiles found tile by tile), are the same
/// tiles byte for byte once the runs are written out; a tile inside the hole holds nothing.
@Test func filledSquares_asRuns_areTheTilesOfCuttingEveryTile() throws {
    let outer = [MapPoint(x: 0.1, y: 0.1), MapPoint(x: 0.9, y: 0.1), MapPoint(x: 0.9, y: 0.45), MapPoint(x: 0.5, y: 0.45), MapPoint(x: 0.5, y: 0.55),
                 MapPoint(x: 0.9, y: 0.55), MapPoint(x: 0.9, y: 0.9), MapPoint(x: 0.1, y: 0.9), MapPoint(x: 0.1, y: 0.1)]
    let sea = MapFeature(layer: .water, id: 7, source: .way, geometry: .polygons([MapPolygon(exterior: outer, holes: [square(cx: 0.3, cy: 0.7, h: 0.08)])]),
                         properties: [MapProperty("class", .string("ocean"))], minZoom: 0)
    let road = feature(.transportation, .lines([[MapPoint(x: 0.05, y: 0.3), MapPoint(x: 0.95, y: 0.32)]]))
    for z in 4...7 {
        let small = try MapTiler(features: [sea, road], options: TilingOptions(minZoom: z, maxZoom: z, blockSize: 1))
        let whole = try MapTiler(features: [sea, road], options: TilingOptions(minZoom: z, maxZoom: z, blockSize: 1 << z))
        #expect(whole.blocks(atZoom: z).count == 1)
        var drops = GeneralisationDrops(), wholeDrops = GeneralisationDrops()
        let blocks = small.blocks(atZoom: z)
        let cut = try blocks.flatMap { try small.tiles(in: $0, drops: &drops) }
        let every = try whole.tiles(in: whole.blocks(atZoom: z)[0], drops: &wholeDrops)
        #expect(cut.contains { $0.runLength > 1 }, "zoom \(z): filled squares come as runs")
        #expect(blocks.count < every.count, "zoom \(z): fewer blocks than tiles")
        #expect(try expanded(cut) == every, "zoom \(z)")
        let inHole = (x: Int(0.3 * Double(1 << z)), y: Int(0.7 * Double(1 << z)))
        #expect(!every.contains { $0.x == inHole.x && $0.y == inHole.y }, "zoom \(z): the tile inside the hole holds nothing")
        #expect(drops == wholeDrops)
        let ids = try expanded(cut).map { PMTiles.tileID(zoom: $0.zoom, x: $0.x, y: $0.y) }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "zoom \(z): tile-id order, each tile once")
    }
}

/// Issue 36: a polygon around the whole world at zoom 14 is cut in the blocks along its edge and
/// given elsewhere as runs: about 12,000 blocks and runs, not 2^20 blocks of 2^28 tiles, every
/// tile addressed once; a tile inside holds the buffered square.
@Test func worldPolygon_atZoom14_isItsOutlineAndRuns() throws {
    let world = feature(.water, .polygons([MapPolygon(exterior: square(cx: 0.5, cy: 0.5, h: 0.5))]))
    let tiler = try MapTiler(features: [world], options: TilingOptions(minZoom: 14, maxZoom: 14))
    let blocks = tiler.blocks(atZoom: 14)
    #expect(blocks.count < 1 << 14, "\(blocks.count) blocks: O(2^14) along the outline, not 2^20")
    var drops = GeneralisationDrops(), addressed = 0, previous: UInt64?
    for block in blocks {
        for tile in try tiler.tiles(in: block, drops: &drops) {
            let id = PMTiles.tileID(zoom: 14, x: tile.x, y: tile.y)
            #expect(previous.map { id > $0 } ?? true)
            previous = id + UInt64(tile.runLength) - 1
            addressed += tile.runLength
        }
    }
    #expect(addressed == 1 << 28)
    let run = try #require(blocks.first { $0.columns.count > 16 })
    let inner = try #require(try tiler.tiles(in: run, drops: &drops).first)
    let ring = try geometry(inner, "water")
    guard case .polygons(let polygons) = ring else { Issue.record("not a polygon: \(ring)"); return }
    #expect(Set(polygons.flatMap { $0.flatMap { $0 } }) == [TilePoint(x: -64, y: -64), TilePoint(x: 4160, y: -64), TilePoint(x: 4160, y: 4160), TilePoint(x: -64, y: 4160)])
}
