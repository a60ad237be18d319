public import GeoCore

/// One layer of a style (spec v8 "Layers"): its type, source, zoom range, filter and its paint
/// and layout properties, each decoded against v8.json (a bad value gives the default).
public struct StyleLayer: Sendable {
    public let id: String
    /// `background`, `fill`, `line`, `symbol`, `circle`, `raster`, `fill-extrusion`, `heatmap`, `hillshade`, …
    public let type: String
    public let source: String?
    public let sourceLayer: String?
    /// The zoom range the layer shows in: `minzoom` ≤ zoom < `maxzoom`.
    public let minZoom: Double, maxZoom: Double
    public internal(set) var filter: FeatureFilter?
    /// The properties the layer sets, by name (the others are at their default).
    public internal(set) var paintValues: [String: StyleProperty]
    public internal(set) var layoutValues: [String: StyleProperty]
    public let metadata: JSONValue?
    /// Every property of the layer's type at v8.json's default, made once per layer.
    private let paintDefaults: [String: StyleProperty], layoutDefaults: [String: StyleProperty]

    /// A paint property, its value or its default; nil for a name the layer type lacks.
    public func paint(_ name: String) -> StyleProperty? {
        paintValues[name] ?? paintDefaults[name]
    }

    /// A layout property, its value or its default; nil for a name the layer type lacks.
    public func layout(_ name: String) -> StyleProperty? {
        layoutValues[name] ?? layoutDefaults[name]
    }

    /// Whether `visibility` is `visible` (its default).
    public var isVisible: Bool { layout("visibility")?.evaluate(zoom: 0) != .string("none") }

    /// Whether the layer shows at `zoom`.
    public func shows(atZoom zoom: Double) -> Bool { isVisible && zoom >= minZoom && zoom < maxZoom }

    /// Decodes layer `index`; nil when it cannot be drawn at all (no id, an unknown type, a
    /// missing source), with the reasons in `diagnostics`.
    init?(json: JSONValue, index: Int, sources: [String: StyleSource], seenIDs: inout Set<String>,
          globalState: [String: ExpressionValue], diagnostics: inout [StyleDiagnostic]) {
        let path = "layers[\(index)]"
        guard case .object(let o) = json else {
            diagnostics.append(StyleDiagnostic(path: path, message: "object expected, \(StyleValidation.typeName(json)) found", recovery: "layer left out"))
            return nil
        }
        guard case .string(let id)? = o["id"] else {
            diagnostics.append(StyleDiagnostic(path: path, message: #"missing required property "id""#, recovery: "layer left out"))
            return nil
        }
        guard !seenIDs.contains(id) else {
            diagnostics.append(StyleDiagnostic(path: path + ".id", message: "duplicate layer id \"\(id)\"", recovery: "layer left out"))
            return nil
        }
        seenIDs.insert(id)
        guard case .string(let type)? = o["type"] else {
            diagnostics.append(StyleDiagnostic(path: path, message: #"missing required property "type""#, recovery: "layer left out"))
            return nil
        }
        let spec = StyleSpec.v8
        guard spec.layerTypes.contains(type) else {
            let list = spec.layerTypes.joined(separator: ", ")
            diagnostics.append(StyleDiagnostic(path: path + ".type", message: "expected one of [\(list)], \"\(type)\" found", recovery: "layer left out"))
            return nil
        }
        for key in o.keys.sorted() where spec.entry("layer", key) == nil {
            diagnostics.append(StyleDiagnostic(path: path, message: "unknown property \"\(key)\""))
        }
        self.id = id
        self.type = type
        metadata = o["metadata"]
        sourceLayer = o["source-layer"]?.string
        if type == "background" {
            source = nil
        } else {
            guard case .string(let name)? = o["source"] else {
                diagnostics.append(StyleDiagnostic(path: path, message: #"missing required property "source""#, recovery: "layer left out"))
                return nil
            }
            guard let src = sources[name] else {
                diagnostics.append(StyleDiagnostic(path: path + ".source", message: "source \"\(name)\" not found", recovery: "layer left out"))
                return nil
            }
            let needs: [String]? = switch type {
            case "raster": ["raster", "image", "video"]
            case "hillshade", "color-relief": ["raster-dem"]
            default: src.type == "vector" || src.type == "geojson" ? nil : ["vector", "geojson"]
            }
            if let needs, !needs.contains(src.type) {
                diagnostics.append(StyleDiagnostic(path: path + ".source", message: "layer \"\(id)\" requires a \"\(needs[0])\" source", recovery: "layer left out"))
                return nil
            }
            if src.type == "vector", sourceLayer == nil {
                diagnostics.append(StyleDiagnostic(path: path, message: "layer \"\(id)\" must specify a \"source-layer\"", recovery: "layer left out"))
                return nil
            }
            source = name
        }
        func zoom(_ key: String, _ fallback: Double) -> Double {
            guard let v = o[key] else { return fallback }
            let problems = StyleValidation.constantProblems(v, PropertySpecification(json: spec.entry("layer", key)), path: "\(path).\(key)")
            guard problems.isEmpty, case .number(let n) = v else {
                diagnostics += problems.map { var d = $0; d.recovery = "\(fallback) used"; return d }
                return fallback
            }
            return n
        }
        minZoom = zoom("minzoom", 0)
        maxZoom = zoom("maxzoom", 24)
        do {
            filter = try o["filter"].map { json throws(ExpressionParseFailure) in try FeatureFilter(json: json, globalState: globalState) }
        } catch {
            diagnostics += error.errors.map { StyleDiagnostic(path: "\(path).filter\($0.key)", message: $0.message, recovery: "no feature passes") }
            filter = try? FeatureFilter(json: .bool(false))
        }
        paintDefaults = Self.defaults(type, paint: true)
        layoutDefaults = Self.defaults(type, paint: false)
        paintValues = Self.properties(o["paint"], layerType: type, paint: true, path: path + ".paint", globalState: globalState, diagnostics: &diagnostics)
        layoutValues = Self.properties(o["layout"], layerType: type, paint: false, path: path + ".layout", globalState: globalState, diagnostics: &diagnostics)
    }

    private static func defaults(_ type: String, paint: Bool) -> [String: StyleProperty] {
        let section = (paint ? "paint_" : "layout_") + type
        var out: [String: StyleProperty] = [:]
        for name in StyleSpec.v8.names(in: section) {
            if let spec = StyleSpec.v8.property(layerType: type, paint: paint, name: name) { out[name] = StyleProperty(default: spec) }
        }
        return out
    }

    /// The `paint` or `layout` object of a layer, each property checked against v8.json.
    static func properties(_ json: JSONValue?, layerType: String, paint: Bool, path: String,
                                   globalState: [String: ExpressionValue], diagnostics: inout [StyleDiagnostic]) -> [String: StyleProperty] {
        guard let json else { return [:] }
        guard case .object(let members) = json else {
            diagnostics.append(StyleDiagnostic(path: path, message: "object expected, \(StyleValidation.typeName(json)) found", recovery: "defaults used"))
            return [:]
        }
        var out: [String: StyleProperty] = [:]
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            let propertyPath = "\(path).\(name)"
            // `-transition` companions of transitionable paint properties: static here.
            if paint, name.hasSuffix("-transition"),
               StyleSpec.v8.property(layerType: layerType, paint: true, name: String(name.dropLast("-transition".count))) != nil {
                continue
            }
            guard let spec = StyleSpec.v8.property(layerType: layerType, paint: paint, name: name) else {
                diagnostics.append(StyleDiagnostic(path: propertyPath, message: "unknown property \"\(name)\""))
                continue
            }
            if value == .null { continue }
            switch StyleValidation.propertyValue(value, spec, path: propertyPath, globalState: globalState) {
            case .success(let v): out[name] = StyleProperty(specification: spec, value: v)
            case .failure(let list): diagnostics += list.items.map { var d = $0; d.recovery = "default used"; return d }
            }
        }
        return out
    }
}
