import GeoCore
import ProtobufWire
import ZlibCompression

/// A Mapbox Vector Tile, MVT 2.1 (https://github.com/mapbox/vector-tile-spec/tree/master/2.1):
/// the layers of one tile as `vector_tile.proto` holds them. Decoding checks every rule of the
/// spec a reader can check and throws `MapDataError` naming the layer and feature at fault.
public struct VectorTile: Hashable, Sendable {
    public var layers: [VectorTileLayer]

    public init(layers: [VectorTileLayer] = []) { self.layers = layers }

    /// Most bytes a stored tile may inflate to unless the caller says otherwise: 32 MiB. MVT 2.1
    /// states no size; real tiles inflate to at most a few MiB (tippecanoe's default cap is
    /// 500 KiB compressed, an OpenMapTiles planet's largest z14 tile about 2 MiB), while gzip
    /// expands up to 1032:1, so a 3.5 MB tile could otherwise ask for 3.5 GB.
    public static let defaultInflateLimit = 32 << 20

    /// Decodes a tile as archives store it: gzip-compressed (the RFC 1952 magic 1F 8B, PMTiles
    /// tile compression 2, the usual MBTiles `tile_data`) or plain.
    /// - Parameter inflateLimit: most bytes the gzip may inflate to.
    /// - Throws: `MapDataError` `.tooLarge` past the limit, `.invalidTile` for gzip that does
    ///   not inflate, else as `init(decoding:)`.
    public init(decodingStored bytes: [UInt8], inflateLimit: Int = VectorTile.defaultInflateLimit) throws(MapDataError) {
        self = try Self.decoded(stored: bytes, inflateLimit: inflateLimit, keepingGeometries: false).tile
    }

    /// Decodes a tile as ``init(decodingStored:inflateLimit:)`` does, with the geometry of every
    /// feature in tile units as checking the tile decoded it (`geometries[l][f]`: feature `f`
    /// of layer `l`): a reader that uses every feature's geometry (a renderer) gets them
    /// without decoding each feature's commands a second time.
    /// - Throws: as `init(decodingStored:inflateLimit:)`.
    public static func decodedWithGeometries(stored bytes: [UInt8], inflateLimit: Int = VectorTile.defaultInflateLimit) throws(MapDataError)
        -> (tile: VectorTile, geometries: [[TileGeometry]]) {
        try decoded(stored: bytes, inflateLimit: inflateLimit, keepingGeometries: true)
    }

    /// Decodes and checks a stored tile (gzip or plain) as ``decodedWithGeometries(stored:inflateLimit:)``
    /// does, without building it: each layer is handed to `layer` (its `features` empty, with
    /// the number that follow), then each of its features to `feature`, in order. A reader that
    /// turns features into its own (a renderer) so allocates nothing per feature for the tile's
    /// command integers, tags or tile-unit geometry. A tile that does not decode throws after
    /// handing over what came before the fault: drop what was made of it.
    /// - Throws: as `init(decodingStored:inflateLimit:)`.
    public static func decode(stored bytes: [UInt8], inflateLimit: Int = VectorTile.defaultInflateLimit,
                              layer: (_ layer: VectorTileLayer, _ featureCount: Int) -> Void,
                              feature: (VectorTileFeatureView) -> Void) throws(MapDataError) {
        guard bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B else { return try decode(bytes, layer: layer, feature: feature) }
        let inflated: [UInt8]
        do { inflated = try Gzip.decompress(bytes, limit: inflateLimit) } catch {
            if error.code == .tooLarge { throw MapDataError(.tooLarge, "gzip tile of \(bytes.count) bytes \(error.message)") }
            throw MapDataError(.invalidTile, "gzip tile of \(bytes.count) bytes: \(error)")
        }
        try decode(inflated, layer: layer, feature: feature)
    }

    /// The stored tile decoded, with its features' geometries when `keep` (else none).
    private static func decoded(stored bytes: [UInt8], inflateLimit: Int, keepingGeometries keep: Bool) throws(MapDataError)
        -> (tile: VectorTile, geometries: [[TileGeometry]]) {
        var tile = VectorTile(), geometries: [[TileGeometry]] = []
        try decode(stored: bytes, inflateLimit: inflateLimit) { layer, count in
            tile.addLayer(layer, featureCount: count, geometries: &geometries, keep: keep)
        } feature: { f in
            tile.addFeature(f, geometries: &geometries, keep: keep)
        }
        return (tile, geometries)
    }

    /// Decodes and validates a tile (uncompressed; gunzip first).
    /// - Throws: `MapDataError` `.invalidTile` / `.invalidGeometry` with the layer and feature.
    /// - Complexity: O(bytes); nothing is allocated in proportion to a declared count that the
    ///   bytes do not back.
    public init(decoding bytes: [UInt8]) throws(MapDataError) {
        var tile = VectorTile(), none: [[TileGeometry]] = []
        try Self.decode(bytes) { layer, count in
            tile.addLayer(layer, featureCount: count, geometries: &none, keep: false)
        } feature: { f in
            tile.addFeature(f, geometries: &none, keep: false)
        }
        self = tile
    }

    /// A decoded layer appended (its features to come), with a list for their geometries when `keep`.
    private mutating func addLayer(_ layer: VectorTileLayer, featureCount: Int, geometries: inout [[TileGeometry]], keep: Bool) {
        layers.append(layer)
        layers[layers.count - 1].features.reserveCapacity(featureCount)
        if keep { geometries.append([]); geometries[geometries.count - 1].reserveCapacity(featureCount) }
    }

    /// A decoded feature appended to the last layer, its geometry to the last list when `keep`.
    private mutating func addFeature(_ f: VectorTileFeatureView, geometries: inout [[TileGeometry]], keep: Bool) {
        layers[layers.count - 1].features.append(VectorTileFeature(id: f.id, tags: Array(f.tags), type: f.type, geometry: Array(f.commands)))
        if keep { geometries[geometries.count - 1].append(TileGeometry(f)) }
    }

    /// The uncompressed tile decoded and checked, handed over as `decode(stored:…)` says.
    private static func decode(_ bytes: [UInt8], layer: (VectorTileLayer, Int) -> Void, feature: (VectorTileFeatureView) -> Void) throws(MapDataError) {
        var names = Set<String>()
        var failure: MapDataError?
        var scratch = FeatureScratch()
        bytes.withUnsafeBytes { raw in
            var r = WireReader(raw)
            var index = 0
            while !r.isAtEnd, failure == nil {
                do {
                    let (field, wire) = try r.readKey()
                    // Tile { repeated Layer layers = 3; extensions 16 to 8191 }
                    guard field == 3 else { try r.skip(wire); continue }
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    let name = try VectorTileLayer.decode(try r.readBytes(), index: index, scratch: &scratch, layer: layer, feature: feature)
                    guard names.insert(name).inserted else {
                        throw MapDataError(.invalidTile, "two layers are named '\(name)' (MVT 2.1 §4.1)", layer: index)
                    }
                    index += 1
                } catch let error as MapDataError {
                    failure = error
                } catch {
                    failure = MapDataError(.invalidTile, (error as? WireError)?.message ?? "\(error)", layer: index)
                }
            }
        }
        if let failure { throw failure }
    }

    /// The tile's protobuf bytes (uncompressed).
    public func encoded() -> [UInt8] {
        var w = WireWriter()
        for layer in layers { w.writeMessageField(3, layer.encodedWriter()) }
        return w.bytes
    }
}

/// One layer of a vector tile (`Layer` in vector_tile.proto).
public struct VectorTileLayer: Hashable, Sendable {
    /// Spec version of the layer: 1 or 2.
    public var version: UInt32
    public var name: String
    /// Tile width and height in layer units (4096 by default).
    public var extent: UInt32
    public var keys: [String]
    public var values: [VectorTileValue]
    public var features: [VectorTileFeature]

    /// The largest extent accepted: 2^24. Tiles use 4096, sometimes 8192; Mapbox's real-world
    /// fixtures go to 2^20. Larger extents are refused as absurd: tile units would then be finer
    /// than a millimetre at z22.
    public static let maximumExtent: UInt32 = 1 << 24

    public init(version: UInt32 = 2, name: String, extent: UInt32 = 4096, keys: [String] = [], values: [VectorTileValue] = [], features: [VectorTileFeature] = []) {
        self.version = version
        self.name = name
        self.extent = extent
        self.keys = keys
        self.values = values
        self.features = features
    }

    /// `Layer { version = 15; name = 1; features = 2; keys = 3; values = 4; extent = 5 }`,
    /// decoded and checked: the layer (without features) handed to `layer`, then each feature,
    /// its geometry decoded to check it, to `feature` (read into `scratch`).
    /// - Returns: the layer's name.
    static func decode(_ bytes: UnsafeRawBufferPointer, index: Int, scratch: inout FeatureScratch,
                       layer: (VectorTileLayer, Int) -> Void, feature: (VectorTileFeatureView) -> Void) throws(MapDataError) -> String {
        var version: UInt32?, name: String?, extent: UInt32 = 4096
        var keys: [String] = [], values: [VectorTileValue] = []
        var featureBytes: [UnsafeRawBufferPointer] = []
        var r = WireReader(bytes)
        do {
            while !r.isAtEnd {
                let (field, wire) = try r.readKey()
                switch field {
                case 15:
                    try WireReader.expect(wire, .varint, field: field)
                    let v = try r.readVarint()
                    guard v == 1 || v == 2 else { throw MapDataError(.invalidTile, "layer version \(v); MVT has versions 1 and 2", layer: index) }
                    version = UInt32(v)
                case 1:
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    name = String(decoding: try r.readBytes(), as: UTF8.self)
                case 2:
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    featureBytes.append(try r.readBytes())
                case 3:
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    keys.append(String(decoding: try r.readBytes(), as: UTF8.self))
                case 4:
                    try WireReader.expect(wire, .lengthDelimited, field: field)
                    values.append(try VectorTileValue(decoding: try r.readBytes()))
                case 5:
                    try WireReader.expect(wire, .varint, field: field)
                    let v = try r.readVarint()
                    guard v > 0, v <= UInt64(Self.maximumExtent) else {
                        throw MapDataError(.invalidTile, "layer extent \(v) is outside 1…\(Self.maximumExtent)", layer: index)
                    }
                    extent = UInt32(v)
                default:
                    try r.skip(wire)
                }
            }
        } catch let error as WireError {
            throw MapDataError(.invalidTile, error.message, layer: index)
        } catch let error as MapDataError {
            throw error
        } catch {
            throw MapDataError(.invalidTile, "\(error)", layer: index)
        }
        guard let version else { throw MapDataError(.invalidTile, "layer has no version (MVT 2.1 §4.1)", layer: index) }
        guard let name, !name.isEmpty else { throw MapDataError(.invalidTile, "layer has no name (MVT 2.1 §4.1)", layer: index) }
        layer(VectorTileLayer(version: version, name: name, extent: extent, keys: keys, values: values), featureBytes.count)
        for (i, bytes) in featureBytes.enumerated() {
            do {
                try scratch.read(bytes)
            } catch {
                throw MapDataError(.invalidTile, error.message, layer: index, feature: i)
            }
            guard scratch.tags.count % 2 == 0 else {
                throw MapDataError(.invalidTile, "feature has \(scratch.tags.count) tag indexes; they come in key, value pairs", layer: index, feature: i)
            }
            for (j, t) in scratch.tags.enumerated() where Int(t) >= (j % 2 == 0 ? keys.count : values.count) {
                throw MapDataError(.invalidTile, "tag \(j % 2 == 0 ? "key" : "value") index \(t) is outside the layer's \(j % 2 == 0 ? keys.count : values.count)", layer: index, feature: i)
            }
            do {
                try scratch.decodeGeometry()
            } catch {
                throw MapDataError(.invalidGeometry, error.message, layer: index, feature: i)
            }
            scratch.withView(feature)
        }
        return name
    }

    func encodedWriter() -> WireWriter {
        var w = WireWriter(capacity: 256)
        w.writeVarintField(15, Int64(version))
        w.writeStringField(1, name)
        for f in features { w.writeMessageField(2, f.encodedWriter()) }
        for k in keys { w.writeStringField(3, k) }
        for v in values { w.writeMessageField(4, v.encodedWriter()) }
        w.writeVarintField(5, Int64(extent))
        return w
    }

    /// The geometry of a feature of this layer in tile units (MVT 2.1 §4.3).
    /// - Throws: `MapDataError.invalidGeometry`.
    public func geometry(of feature: VectorTileFeature) throws(MapDataError) -> TileGeometry {
        do { return try feature.decodedGeometry() } catch { throw MapDataError(.invalidGeometry, error.message) }
    }

    /// The properties of a feature of this layer, by name.
    public func properties(of feature: VectorTileFeature) -> [(key: String, value: VectorTileValue)] {
        stride(from: 0, to: feature.tags.count - 1, by: 2).map { (keys[Int(feature.tags[$0])], values[Int(feature.tags[$0 + 1])]) }
    }
}

/// A property value (`Value` in vector_tile.proto): exactly one of seven types.
public enum VectorTileValue: Hashable, Sendable {
    case string(String), float(Float), double(Double), int(Int64), uint(UInt64), sint(Int64), bool(Bool)

    /// `Value { string = 1; float = 2; double = 3; int = 4; uint = 5; sint = 6; bool = 7 }`,
    /// exactly one of them, with its own wire type.
    init(decoding bytes: UnsafeRawBufferPointer) throws(MapDataError) {
        var r = WireReader(bytes)
        var value: VectorTileValue?
        do {
            while !r.isAtEnd {
                let (field, wire) = try r.readKey()
                let v: VectorTileValue
                switch (field, wire) {
                case (1, .lengthDelimited): v = .string(String(decoding: try r.readBytes(), as: UTF8.self))
                case (2, .fixed32): v = .float(Float(bitPattern: try r.readFixed32()))
                case (3, .fixed64): v = .double(Double(bitPattern: try r.readFixed64()))
                case (4, .varint): v = .int(try r.readInt64())
                case (5, .varint): v = .uint(try r.readVarint())
                case (6, .varint): v = .sint(try r.readSignedVarint())
                case (7, .varint): v = .bool(try r.readVarint() != 0)
                default:
                    throw MapDataError(.invalidTile, "value field \(field) with wire type \(wire.rawValue) is not one of MVT 2.1's seven value types")
                }
                guard value == nil else { throw MapDataError(.invalidTile, "value has more than one field") }
                value = v
            }
        } catch let error as WireError {
            throw MapDataError(.invalidTile, "value: \(error.message)")
        } catch let error as MapDataError {
            throw error
        } catch {
            throw MapDataError(.invalidTile, "\(error)")
        }
        guard let value else { throw MapDataError(.invalidTile, "value has no field") }
        self = value
    }

    func encodedWriter() -> WireWriter {
        var w = WireWriter(capacity: 16)
        switch self {
        case .string(let s): w.writeStringField(1, s)
        case .float(let f): w.writeFixed32Field(2, f.bitPattern)
        case .double(let d): w.writeFixed64Field(3, d.bitPattern)
        case .int(let i): w.writeVarintField(4, i)
        case .uint(let u): w.writeVarintField(5, Int64(bitPattern: u))
        case .sint(let s): w.writeSignedField(6, s)
        case .bool(let b): w.writeVarintField(7, b ? 1 : 0)
        }
        return w
    }

    /// The MVT value of a schema value (integers as `sint` when negative, `uint` otherwise,
    /// the smallest encodings).
    public init(_ value: MapValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .int(let i): self = i < 0 ? .sint(i) : .uint(UInt64(i))
        case .double(let d): self = .double(d)
        case .bool(let b): self = .bool(b)
        }
    }
}

/// The MVT geometry types (`GeomType`).
public enum VectorTileGeometryType: UInt32, Hashable, Sendable {
    case unknown = 0, point = 1, lineString = 2, polygon = 3
}

/// One feature (`Feature` in vector_tile.proto): raw command integers and tag indexes.
public struct VectorTileFeature: Hashable, Sendable {
    public var id: UInt64?
    /// Key, value index pairs into the layer's `keys` and `values`.
    public var tags: [UInt32]
    public var type: VectorTileGeometryType
    /// Command integers and zigzag parameters (MVT 2.1 §4.3).
    public var geometry: [UInt32]

    public init(id: UInt64? = nil, tags: [UInt32] = [], type: VectorTileGeometryType, geometry: [UInt32]) {
        self.id = id
        self.tags = tags
        self.type = type
        self.geometry = geometry
    }

    func encodedWriter() -> WireWriter {
        var w = WireWriter(capacity: geometry.count * 2 + 16)
        if let id { w.writeVarintField(1, Int64(bitPattern: id)) }
        w.writePacked(2, tags.lazy.map { Int64($0) })
        w.writeVarintField(3, Int64(type.rawValue))
        w.writePacked(4, geometry.lazy.map { Int64($0) })
        return w
    }
}

/// One feature of a tile as ``VectorTile/decode(stored:inflateLimit:layer:feature:)`` hands it
/// over, checked: its fields and its geometry in tile units, in storage the decode reuses for
/// the next feature, so valid only during the call (copy what is kept).
///
/// The geometry is a list of parts, each a run of `points`: all the points of a point
/// geometry in one part, each line of a line geometry, each ring of a polygon geometry (closed:
/// its first point repeated at the end; rings of no area left out), the rings of one polygon
/// (exterior first, then its holes) consecutive. None for UNKNOWN geometry.
public struct VectorTileFeatureView {
    public let id: UInt64?
    public let type: VectorTileGeometryType
    /// Key, value index pairs into the layer's `keys` and `values`, each within them.
    public let tags: UnsafeBufferPointer<UInt32>
    /// Command integers and zigzag parameters (MVT 2.1 §4.3).
    public let commands: UnsafeBufferPointer<UInt32>
    /// The geometry's points, part after part.
    public let points: UnsafeBufferPointer<TilePoint>
    /// Where each part ends in `points` (the index after its last point).
    let partEnds: UnsafeBufferPointer<Int>
    /// Where each polygon's rings end in the parts (the index after its last ring).
    let polygonEnds: UnsafeBufferPointer<Int>

    /// The number of parts: points (one), lines or rings.
    public var partCount: Int { partEnds.count }

    /// The points of part `i`.
    public func part(_ i: Int) -> UnsafeBufferPointer<TilePoint> {
        UnsafeBufferPointer(rebasing: points[(i == 0 ? 0 : partEnds[i - 1])..<partEnds[i]])
    }

    /// The number of polygons (0 unless the geometry is a polygon's).
    public var polygonCount: Int { polygonEnds.count }

    /// The parts (rings) of polygon `i`: its exterior ring, then its holes.
    public func rings(ofPolygon i: Int) -> Range<Int> { (i == 0 ? 0 : polygonEnds[i - 1])..<polygonEnds[i] }
}

/// A feature's fields and geometry as a tile's decode reads them, in arrays kept from one
/// feature to the next (no allocation per feature once they have grown).
struct FeatureScratch {
    var id: UInt64?
    var type = VectorTileGeometryType.unknown
    var tags: [UInt32] = []
    var commands: [UInt32] = []
    /// The decoded geometry (``VectorTileFeatureView``'s).
    var points: [TilePoint] = []
    var partEnds: [Int] = []
    var polygonEnds: [Int] = []

    /// `Feature { id = 1; tags = 2 (packed); type = 3; geometry = 4 (packed) }` read (the
    /// geometry not yet decoded).
    mutating func read(_ bytes: UnsafeRawBufferPointer) throws(WireError) {
        var r = WireReader(bytes)
        var known: VectorTileGeometryType?, hasGeometry = false
        id = nil
        tags.removeAll(keepingCapacity: true)
        commands.removeAll(keepingCapacity: true)
        func packed(_ r: inout WireReader, _ wire: WireType, into list: inout [UInt32]) throws(WireError) {
            if wire == .varint { list.append(try Self.uint32(r.readVarint())); return }
            try WireReader.expect(wire, .lengthDelimited, field: 0)
            let bytes = try r.readBytes()
            list.reserveCapacity(list.count + WireReader.varintCount(bytes))
            var p = WireReader(bytes)
            while !p.isAtEnd { list.append(try Self.uint32(p.readVarint())) }
        }
        while !r.isAtEnd {
            let (field, wire) = try r.readKey()
            switch field {
            case 1:
                try WireReader.expect(wire, .varint, field: field)
                id = try r.readVarint()
            case 2: try packed(&r, wire, into: &tags)
            case 3:
                try WireReader.expect(wire, .varint, field: field)
                let t = try r.readVarint()
                guard t <= 3, let k = VectorTileGeometryType(rawValue: UInt32(t)) else { throw WireError("geometry type \(t) is not a GeomType") }
                known = k
            case 4:
                guard !hasGeometry else { throw WireError("feature has two geometry fields") }
                hasGeometry = true
                try packed(&r, wire, into: &commands)
            default:
                try r.skip(wire)
            }
        }
        guard hasGeometry else { throw WireError("feature has no geometry (MVT 2.1 §4.2)") }
        // A missing type is proto2's default, UNKNOWN (see the fixture test on 003 and 016).
        type = known ?? .unknown
    }

    private static func uint32(_ v: UInt64) throws(WireError) -> UInt32 {
        guard v <= UInt64(UInt32.max) else { throw WireError("value \(v) does not fit uint32") }
        return UInt32(v)
    }

    /// `body`'s result for the feature read and decoded.
    func withView<R>(_ body: (VectorTileFeatureView) -> R) -> R {
        tags.withUnsafeBufferPointer { tags in
            commands.withUnsafeBufferPointer { commands in
                points.withUnsafeBufferPointer { points in
                    partEnds.withUnsafeBufferPointer { partEnds in
                        polygonEnds.withUnsafeBufferPointer { polygonEnds in
                            body(VectorTileFeatureView(id: id, type: type, tags: tags, commands: commands, points: points, partEnds: partEnds, polygonEnds: polygonEnds))
                        }
                    }
                }
            }
        }
    }
}

extension VectorTileLayer {
    /// The features of this layer as map features in world units, for a tile at z/x/y: what a
    /// renderer draws from an archive. `geometries` are the features' geometries in tile units,
    /// one per feature in order, as ``VectorTile/decodedWithGeometries(stored:inflateLimit:)``
    /// gives them (checked there, not decoded again). Layers outside `MapLayer` give none;
    /// features with UNKNOWN geometry are skipped; `minZoom` is the tile's zoom.
    public func mapFeatures(zoom: Int, x: Int, y: Int, geometries: [TileGeometry]) -> [MapFeature] {
        precondition(geometries.count == features.count, "Broken contract: \(geometries.count) geometries for \(features.count) features")
        guard let layer = MapLayer(rawValue: name) else { return [] }
        let scale = 1 / (Double(1 << zoom) * Double(extent))
        let originX = Double(x) * Double(extent), originY = Double(y) * Double(extent)
        func world(_ ring: [TilePoint]) -> [MapPoint] {
            ring.map { MapPoint(x: (originX + Double($0.x)) * scale, y: (originY + Double($0.y)) * scale) }
        }
        var out: [MapFeature] = []
        out.reserveCapacity(features.count)
        for (feature, tileGeometry) in zip(features, geometries) {
            let geometry: MapGeometry
            switch tileGeometry {
            case .unknown: continue
            case .points(let ps): geometry = .points(world(ps))
            case .lines(let ls): geometry = .lines(ls.map(world))
            case .polygons(let ps): geometry = .polygons(ps.map { MapPolygon(exterior: world($0[0]), holes: $0.dropFirst().map(world)) })
            }
            let properties = properties(of: feature).map { MapProperty($0.key, $0.value.mapValue) }
            // OpenMapTiles' id: the OSM id × 10 + the element kind (as `MapTiler` writes it).
            let id = feature.id.map { Int64(truncatingIfNeeded: $0 / 10) } ?? 0
            let source = feature.id.flatMap { OSMElementType(rawValue: UInt8($0 % 10)) } ?? .node
            out.append(MapFeature(layer: layer, id: id, source: source, geometry: geometry, properties: properties, minZoom: zoom))
        }
        return out
    }
}

extension VectorTileValue {
    /// The schema value: integers as `.int` (a `uint` past Int64 saturates), floats as `.double`.
    public var mapValue: MapValue {
        switch self {
        case .string(let s): .string(s)
        case .float(let f): .double(Double(f))
        case .double(let d): .double(d)
        case .int(let i), .sint(let i): .int(i)
        case .uint(let u): .int(u > UInt64(Int64.max) ? .max : Int64(u))
        case .bool(let b): .bool(b)
        }
    }
}
