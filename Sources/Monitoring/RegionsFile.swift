import Platform
import GeoCore
import GeoBase
import SystemIO

/// Regions from a file: GeoJSON (RFC 7946) or an Osmosis `.poly` file.
public enum RegionsFile {
    /// The conditions of the file at `path`, read whole through SystemIO (`geo monitor
    /// --regions`, `geo serve-tracking --fences`), as ``conditions(from:name:)`` reads them.
    /// - Throws: `SystemIOError` naming `path` when it cannot be read; `MonitoringError` as
    ///   ``conditions(from:name:)``.
    public static func conditions(atPath path: String) throws -> [(identifier: String, condition: MonitorCondition)] {
        try conditions(from: try FileDescriptor.readContents(of: path), name: path)
    }

    /// The conditions a file holds, in file order.
    ///
    /// GeoJSON: each Polygon or MultiPolygon feature is a polygon condition, each Point feature
    /// with a numeric `radius` property (metres) a circle; a bare geometry is one region. The
    /// identifier is the feature's `identifier` property, else its `id`, else its `id` property,
    /// else its `name` property, else `region-N` (N counting from 1); two regions with one identifier are
    /// refused (the second would replace the first). A `.poly` file (by name, or, in a file
    /// named neither `.geojson` nor `.json`, text not starting with `{`) is one polygon region
    /// named by its first line.
    /// - Parameter name: the file's name, for error locations and `.poly` detection.
    /// - Throws: `MonitoringError` naming the file and the feature or line at fault.
    public static func conditions(from bytes: [UInt8], name: String) throws(MonitoringError) -> [(identifier: String, condition: MonitorCondition)] {
        let firstByte = bytes.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        let lower = name.lowercased()
        let namedJSON = lower.hasSuffix(".geojson") || lower.hasSuffix(".json")
        if lower.hasSuffix(".poly") || (!namedJSON && firstByte != UInt8(ascii: "{") && firstByte != nil) {
            let text = String(decoding: bytes, as: UTF8.self)
            let title = text.split(whereSeparator: \.isNewline).first.map { String($0).trimmedOfSpaces } ?? ""
            let region = try PolygonRegion(osmosisPoly: text, file: name)
            return [(title.isEmpty ? "region-1" : title, .polygon(region))]
        }
        let document: GeoJSON
        do { document = try GeoJSON(data: Data(bytes)) } catch {
            throw MonitoringError(.invalidRegionsFile, error.message, at: name)
        }
        let features: [GeoJSONFeature] = switch document {
        case .geometry(let g): [GeoJSONFeature(geometry: g)]
        case .feature(let f): [f]
        case .featureCollection(let fs): fs
        }
        var result: [(identifier: String, condition: MonitorCondition)] = []
        var firstFeature: [String: Int] = [:]
        for (i, feature) in features.enumerated() {
            let place = "\(name): $.features[\(i)]"
            func text(_ value: JSONValue?) -> String? {
                switch value {
                case .string(let s)?: s
                case .number(let n)?: ShortestDecimal.string(n)
                default: nil
                }
            }
            let identifier = text(feature.properties?["identifier"]) ?? text(feature.id) ?? text(feature.properties?["id"])
                ?? text(feature.properties?["name"]) ?? "region-\(i + 1)"
            if let earlier = firstFeature.updateValue(i, forKey: identifier) {
                throw MonitoringError(.invalidRegionsFile, "identifier '\(identifier)' is $.features[\(earlier)]'s too: each region needs its own", at: place)
            }
            let condition: MonitorCondition
            do throws(MonitoringError) {
                switch feature.geometry {
                case .polygon(let rings)?:
                    condition = .polygon(try PolygonRegion(polygons: [rings.map { $0.map(\.coordinate) }]))
                case .multiPolygon(let polygons)?:
                    condition = .polygon(try PolygonRegion(polygons: polygons.map { $0.map { $0.map(\.coordinate) } }))
                case .point(let centre)?:
                    guard case .number(let radius)? = feature.properties?["radius"] else {
                        throw MonitoringError(.invalidRegionsFile, "a Point region needs a numeric 'radius' property (metres)")
                    }
                    condition = .circle(try CircularGeographicCondition(center: centre.coordinate, radius: .meters(radius)))
                default:
                    throw MonitoringError(.invalidRegionsFile, "a region is a Polygon, a MultiPolygon or a Point with a radius")
                }
            } catch {
                throw MonitoringError(error.code, error.message, at: place)
            }
            result.append((identifier, condition))
        }
        guard !result.isEmpty else { throw MonitoringError(.invalidRegionsFile, "no region in the file", at: name) }
        return result
    }
}

extension String {
    /// Without leading and trailing white space.
    var trimmedOfSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
