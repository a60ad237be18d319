import GeoCore
import ProtobufWire

/// The bytes of one `MapFeature` in a scratch file (`MapFeaturePartition`): exact, so a feature
/// read back cuts into the same tiles as the one written.
///
/// Layout, protobuf varints (`ProtobufWire`): sequence number, layer (index in
/// `MapLayer.allCases`), source kind, minimum zoom, id (zigzag), property count, then per
/// property the key (length, UTF-8) and a value (tag 0 string, 1 int zigzag, 2 double bits
/// fixed64, 3 bool); then the geometry: tag (0 points, 1 lines, 2 polygons), counts, and each
/// point's x and y as fixed64 `Double` bits. A polygon is its ring count, exterior first.
enum MapFeatureRecord {
    static func append(_ feature: MapFeature, sequence: Int, to w: inout WireWriter) {
        w.writeVarint(UInt64(sequence))
        w.writeVarint(UInt64(MapLayer.allCases.firstIndex(of: feature.layer)!))
        w.writeVarint(UInt64(feature.source.rawValue))
        w.writeVarint(UInt64(max(0, feature.minZoom)))
        w.writeSignedVarint(feature.id)
        w.writeVarint(UInt64(feature.properties.count))
        for p in feature.properties {
            string(p.key, &w)
            switch p.value {
            case .string(let s): w.writeVarint(0); string(s, &w)
            case .int(let i): w.writeVarint(1); w.writeSignedVarint(i)
            case .double(let d): w.writeVarint(2); fixed64(d.bitPattern, &w)
            case .bool(let b): w.writeVarint(3); w.writeVarint(b ? 1 : 0)
            }
        }
        switch feature.geometry {
        case .points(let points):
            w.writeVarint(0); line(points, &w)
        case .lines(let lines):
            w.writeVarint(1); w.writeVarint(UInt64(lines.count))
            for l in lines { line(l, &w) }
        case .polygons(let polygons):
            w.writeVarint(2); w.writeVarint(UInt64(polygons.count))
            for p in polygons {
                w.writeVarint(UInt64(1 + p.holes.count))
                line(p.exterior, &w)
                for h in p.holes { line(h, &w) }
            }
        }
    }

    /// Reads one record.
    /// - Throws: `MapDataError.truncated` or `.invalidArchive` for bytes this type did not write
    ///   (a damaged scratch file).
    static func read(_ r: inout WireReader) throws(MapDataError) -> (sequence: Int, feature: MapFeature) {
        do {
            let sequence = Int(try r.readVarint())
            let layers = MapLayer.allCases
            let layerIndex = Int(try r.readVarint())
            guard layerIndex < layers.count, let source = OSMElementType(rawValue: UInt8(truncatingIfNeeded: try r.readVarint())) else {
                throw MapDataError(.invalidArchive, "feature record \(sequence): unknown layer or source")
            }
            let minZoom = Int(try r.readVarint())
            let id = try r.readSignedVarint()
            let propertyCount = try count(&r)
            var properties: [MapProperty] = []
            properties.reserveCapacity(propertyCount)
            for _ in 0..<propertyCount {
                let key = try string(&r)
                let value: MapValue
                switch try r.readVarint() {
                case 0: value = .string(try string(&r))
                case 1: value = .int(try r.readSignedVarint())
                case 2: value = .double(Double(bitPattern: try r.readFixed64()))
                case 3: value = .bool(try r.readVarint() != 0)
                default: throw MapDataError(.invalidArchive, "feature record \(sequence): unknown value tag")
                }
                properties.append(MapProperty(key, value))
            }
            let geometry: MapGeometry
            switch try r.readVarint() {
            case 0: geometry = .points(try line(&r))
            case 1:
                let n = try count(&r)
                var lines: [[MapPoint]] = []
                lines.reserveCapacity(n)
                for _ in 0..<n { lines.append(try line(&r)) }
                geometry = .lines(lines)
            case 2:
                let n = try count(&r)
                var polygons: [MapPolygon] = []
                polygons.reserveCapacity(n)
                for _ in 0..<n {
                    let rings = try count(&r)
                    guard rings >= 1 else { throw MapDataError(.invalidArchive, "feature record \(sequence): a polygon without rings") }
                    var polygon = MapPolygon(exterior: try line(&r))
                    for _ in 1..<rings { polygon.holes.append(try line(&r)) }
                    polygons.append(polygon)
                }
                geometry = .polygons(polygons)
            default: throw MapDataError(.invalidArchive, "feature record \(sequence): unknown geometry tag")
            }
            return (sequence, MapFeature(layer: layers[layerIndex], id: id, source: source, geometry: geometry, properties: properties, minZoom: minZoom))
        } catch let error as MapDataError {
            throw error
        } catch {
            throw MapDataError(.truncated, "feature record: \(error)")
        }
    }

    private static func fixed64(_ v: UInt64, _ w: inout WireWriter) {
        for i in 0..<8 { w.bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    private static func string(_ s: String, _ w: inout WireWriter) {
        var s = s
        s.withUTF8 { utf8 in
            w.writeVarint(UInt64(utf8.count))
            w.bytes.append(contentsOf: utf8)
        }
    }

    private static func line(_ points: [MapPoint], _ w: inout WireWriter) {
        w.writeVarint(UInt64(points.count))
        for p in points {
            fixed64(p.x.bitPattern, &w)
            fixed64(p.y.bitPattern, &w)
        }
    }

    /// A count, checked against the bytes left (each counted item takes at least one byte).
    private static func count(_ r: inout WireReader) throws -> Int {
        let n = try r.readVarint()
        guard n <= UInt64(r.remaining) else { throw MapDataError(.truncated, "feature record: count \(n) with \(r.remaining) bytes left") }
        return Int(n)
    }

    private static func string(_ r: inout WireReader) throws -> String {
        String(decoding: try r.readBytes(), as: UTF8.self)
    }

    private static func line(_ r: inout WireReader) throws -> [MapPoint] {
        let n = try count(&r)
        guard n * 16 <= r.remaining else { throw MapDataError(.truncated, "feature record: \(n) points with \(r.remaining) bytes left") }
        var points: [MapPoint] = []
        points.reserveCapacity(n)
        for _ in 0..<n {
            points.append(MapPoint(x: Double(bitPattern: try r.readFixed64()), y: Double(bitPattern: try r.readFixed64())))
        }
        return points
    }
}
