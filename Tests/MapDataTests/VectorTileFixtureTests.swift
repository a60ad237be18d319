import Foundation
import Testing
import GeoTestSupport
import MapData
import ZlibCompression

/// The MVT fixture suite (github.com/mapbox/mvt-fixtures, `$LOCATIONKIT_DATA/tiles/mvt-fixtures`):
/// each case has `tile.mvt`, the protobuf as JSON (`tile.json`) and its validity for 2.x readers.
private struct Fixture: CustomTestStringConvertible, Sendable {
    var id: String
    var folder: URL
    var testDescription: String { id }
}

private func fixtures() throws -> [Fixture] {
    guard let root = try Fixtures.url("tiles/mvt-fixtures/fixtures") else { return [] }
    return try FileManager.default.contentsOfDirectory(atPath: root.path).sorted().map {
        Fixture(id: $0, folder: root.appendingPathComponent($0))
    }
}

/// Two pairs of fixtures are the same bytes with opposite verdicts; no reader can follow both:
/// - 057 ("a gigantic MoveTo", valid) has the geometry of 051 (invalid, "count too large"): a
///   MoveTo of count 2^29 − 1 and one point. LocationKit follows 051 and MVT 2.1 §4.3.2 (the
///   count is the number of parameter pairs that follow) and rejects both.
/// - 003 ("missing geometry type", invalid) is byte for byte 016 ("UNKNOWN type", valid): proto2
///   reads a missing `type` as its default, UNKNOWN, so LocationKit accepts both.
private let contradictory: [String: Bool] = ["057": false, "003": true]

@Test(arguments: try fixtures())
private func mvtFixture_validDecodesToItsJSON_invalidIsRejected(_ fixture: Fixture) throws {
    let info = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture.folder.appendingPathComponent("info.json"))) as! [String: Any]
    let validity = info["validity"] as! [String: Any]
    let valid = contradictory[fixture.id] ?? (validity["v2"] as? Bool ?? false)
    let bytes = try [UInt8](Data(contentsOf: fixture.folder.appendingPathComponent("tile.mvt")))
    guard valid else {
        #expect(throws: MapDataError.self, "fixture \(fixture.id) is invalid: \(info["description"] ?? "")") { _ = try VectorTile(decoding: bytes) }
        return
    }
    let tile = try VectorTile(decoding: bytes)
    let json = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture.folder.appendingPathComponent("tile.json"))) as! [String: Any]
    let layers = json["layers"] as? [[String: Any]] ?? []
    try #require(tile.layers.count == layers.count)
    for (layer, expected) in zip(tile.layers, layers) {
        #expect(layer.name == expected["name"] as? String)
        #expect(Int(layer.version) == expected["version"] as? Int)
        #expect(Int(layer.extent) == (expected["extent"] as? Int ?? 4096))
        #expect(layer.keys == expected["keys"] as? [String] ?? [])
        let values = expected["values"] as? [[String: Any]] ?? []
        try #require(layer.values.count == values.count)
        for (value, e) in zip(layer.values, values) {
            switch value {
            // 076's JSON writes its string "613" as a number; compare the text.
            case .string(let s): #expect(s == e["string_value"].map { "\($0)" })
            case .float(let f): #expect(f == (e["float_value"] as? NSNumber)?.floatValue)
            case .double(let d): #expect(d == (e["double_value"] as? NSNumber)?.doubleValue)
            case .int(let i): #expect(i == (e["int_value"] as? NSNumber)?.int64Value)
            case .uint(let u): #expect(u == (e["uint_value"] as? NSNumber)?.uint64Value)
            case .sint(let s): #expect(s == (e["sint_value"] as? NSNumber)?.int64Value)
            case .bool(let b): #expect(b == e["bool_value"] as? Bool)
            }
        }
        let features = expected["features"] as? [[String: Any]] ?? []
        try #require(layer.features.count == features.count)
        for (feature, e) in zip(layer.features, features) {
            #expect(feature.id == (e["id"] as? NSNumber)?.uint64Value)
            #expect(feature.tags.map(Int.init) == e["tags"] as? [Int] ?? [])
            #expect(Int(feature.type.rawValue) == e["type"] as? Int ?? 0) // absent: UNKNOWN
            #expect(feature.geometry.map { UInt64($0) } == (e["geometry"] as? [NSNumber] ?? []).map(\.uint64Value))
            _ = try layer.geometry(of: feature)
        }
    }
    // What was read writes back to the same tile.
    #expect(try VectorTile(decoding: tile.encoded()) == tile)
}

@Test func mvtFixture_polygonDecodesToTheSpecExample() throws {
    // MVT 2.1 §4.3.5.5 "Example Polygon": (3,6) (8,12) (20,34), closed.
    guard let root = try Fixtures.url("tiles/mvt-fixtures/fixtures/019") else { return }
    let tile = try VectorTile(decoding: [UInt8](Data(contentsOf: root.appendingPathComponent("tile.mvt"))))
    let layer = try #require(tile.layers.first)
    let geometry = try layer.geometry(of: try #require(layer.features.first))
    let ring = [TilePoint(x: 3, y: 6), TilePoint(x: 8, y: 12), TilePoint(x: 20, y: 34), TilePoint(x: 3, y: 6)]
    #expect(geometry == .polygons([[ring]]))
}

/// The real-world tiles' paths under `root` (`.mvt`, `.mvt.gz`): at least 10 of them.
private func realWorldTiles(under root: URL) throws -> [String] {
    let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".mvt") || $0.hasSuffix(".mvt.gz") }
    try #require(files.count >= 10)
    return files
}

@Test func realWorldTiles_decodeWithEveryGeometry() throws {
    guard let root = try Fixtures.url("tiles/real-world") else { return }
    let files = try realWorldTiles(under: root)
    for file in files {
        var bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(file)))
        if file.hasSuffix(".gz") { bytes = try Gzip.decompress(bytes, limit: VectorTile.defaultInflateLimit) }
        let tile = try VectorTile(decoding: bytes)
        #expect(!tile.layers.isEmpty, "\(file)")
        var features = 0
        for layer in tile.layers {
            for feature in layer.features {
                _ = try layer.geometry(of: feature)
                features += 1
            }
        }
        #expect(features > 0, "\(file)")
    }
}

@Test func decodedWithGeometries_givesTheTileAndEveryFeaturesGeometry() throws {
    guard let root = try Fixtures.url("tiles/real-world") else { return }
    let files = try realWorldTiles(under: root)
    for file in files {
        // As stored: gzip or plain.
        let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(file)))
        let (tile, geometries) = try VectorTile.decodedWithGeometries(stored: bytes)
        #expect(tile == (try VectorTile(decodingStored: bytes)), "\(file)")
        #expect(geometries.count == tile.layers.count, "\(file)")
        for (layer, kept) in zip(tile.layers, geometries) {
            #expect(kept == (try layer.features.map { try layer.geometry(of: $0) }), "\(file), layer \(layer.name)")
        }
    }
}

@Test func decode_handsEachLayerThenItsFeaturesInOrder_asDecodedWithGeometriesHoldsThem() throws {
    guard let root = try Fixtures.url("tiles/real-world") else { return }
    let files = try realWorldTiles(under: root)
    for file in files {
        let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(file)))
        let (tile, geometries) = try VectorTile.decodedWithGeometries(stored: bytes)
        var layers: [(layer: VectorTileLayer, count: Int)] = []
        var features: [[(feature: VectorTileFeature, geometry: TileGeometry, points: Int)]] = []
        try VectorTile.decode(stored: bytes) { layer, count in
            layers.append((layer, count))
            features.append([])
        } feature: { f in
            let parts = (0..<f.partCount).reduce(0) { $0 + f.part($1).count }
            features[features.count - 1].append((VectorTileFeature(id: f.id, tags: Array(f.tags), type: f.type, geometry: Array(f.commands)), TileGeometry(f), parts))
        }
        #expect(layers.map(\.layer.name) == tile.layers.map(\.name), "\(file)")
        for ((layer, count), (decoded, kept)) in zip(layers, zip(tile.layers, geometries)) {
            #expect(layer.features.isEmpty && count == decoded.features.count, "\(file), layer \(layer.name)")
            let handed = features[layers.firstIndex { $0.layer.name == layer.name }!]
            #expect(handed.map(\.feature) == decoded.features, "\(file), layer \(layer.name)")
            #expect(handed.map(\.geometry) == kept, "\(file), layer \(layer.name)")
            // The parts are the points, one after another.
            #expect(handed.allSatisfy { h in
                switch h.geometry {
                case .unknown: h.points == 0
                case .points(let ps): h.points == ps.count
                case .lines(let ls): h.points == ls.reduce(0) { $0 + $1.count }
                case .polygons(let ps): h.points == ps.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
                }
            }, "\(file), layer \(layer.name)")
        }
    }
}

@Test func badTiles_areTypedErrorsNamingLayerAndFeature() throws {
    let good = VectorTileFeature(id: 1, type: .polygon, geometry: [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15])
    func tile(_ features: [VectorTileFeature], extent: UInt32 = 4096) -> [UInt8] {
        VectorTile(layers: [VectorTileLayer(name: "ok", features: [good]), VectorTileLayer(name: "bad", extent: extent, features: features)]).encoded()
    }
    #expect(try VectorTile(decoding: tile([good])).layers.count == 2)
    // Unclosed ring: the ClosePath of the good square dropped.
    do {
        _ = try VectorTile(decoding: tile([good, VectorTileFeature(type: .polygon, geometry: Array(good.geometry.dropLast()))]))
        Issue.record("an unclosed ring decoded")
    } catch {
        #expect(error.code == .invalidGeometry && error.layer == 1 && error.feature == 1, "\(error)")
        #expect(error.message.contains("unclosed"))
    }
    // An unknown command (id 3), and a huge extent.
    #expect(throws: MapDataError.self) { _ = try VectorTile(decoding: tile([VectorTileFeature(type: .point, geometry: [11, 2, 2])])) }
    #expect(throws: MapDataError.self) { _ = try VectorTile.decodedWithGeometries(stored: tile([VectorTileFeature(type: .point, geometry: [11, 2, 2])])) }
    do {
        _ = try VectorTile(decoding: tile([good], extent: 1 << 30))
        Issue.record("a 2^30 extent decoded")
    } catch {
        #expect(error.code == .invalidTile && error.layer == 1 && error.message.contains("extent"), "\(error)")
    }
    // Cut anywhere: an error or a shorter valid tile, never a crash.
    let bytes = tile([good])
    for cut in 0..<bytes.count { _ = try? VectorTile(decoding: Array(bytes[..<cut])) }
}
