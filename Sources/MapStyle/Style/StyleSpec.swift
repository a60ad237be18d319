public import GeoCore
import Platform

/// The MapLibre Style Specification v8's reference (`v8.json`) as data: the root, source,
/// layer, layout and paint entries (their type, default, range, enum values and expression
/// parameters), read from ``styleSpecJSON``, which `scripts/style-spec-table.py` generates from
/// `maplibre-style-spec/v8.json`. Nothing of the table is copied by hand into Swift.
public struct StyleSpec: Sendable {
    /// The table, decoded once.
    public static let v8 = StyleSpec()

    /// Sections by name (`$root`, `layer`, `source_geojson`, `paint_fill`, …), each a
    /// dictionary of entries by property name.
    let sections: [String: [String: JSONValue]]

    private init() {
        var table: [String: [String: JSONValue]] = [:]
        if let root = try? JSONValue(parsing: Array(styleSpecJSON.utf8)),
           case .object(let sections)? = root.member("sections") {
            for (name, body) in sections {
                if case .object(let entries) = body { table[name] = entries }
            }
        }
        sections = table
    }

    /// The entry of one property in a section, or nil when the section has no such property.
    public func entry(_ section: String, _ name: String) -> JSONValue? { sections[section]?[name] }

    /// The property names of a section, sorted.
    public func names(in section: String) -> [String] { (sections[section] ?? [:]).keys.sorted() }

    /// The specification of a layer's paint or layout property; nil for a property the layer
    /// type does not have.
    public func property(layerType: String, paint: Bool, name: String) -> PropertySpecification? {
        entry((paint ? "paint_" : "layout_") + layerType, name).map { PropertySpecification(json: $0) }
    }

    /// The layer types v8 defines (`background`, `fill`, `line`, …).
    public var layerTypes: [String] { entry("layer", "type").map { PropertySpecification(json: $0).enumValues } ?? [] }

    /// The source types v8 defines (`vector`, `raster`, `geojson`, …).
    public var sourceTypes: [String] {
        sections.keys.filter { $0.hasPrefix("source_") }.map { String($0.dropFirst("source_".count)) }.sorted()
    }
}
