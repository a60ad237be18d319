import Foundation
import GeoCore
import GeoTestSupport
import MapStyle
import Testing

/// The runtime style API (`setPaintProperty` … `removeSource`) against the operations of the
/// MapLibre render suite: each accepted change gives the document that decoding the style with
/// the change written into its JSON gives (as the suite's harness applies them); each refused
/// one is a change the decoder would also have reported.
@Suite struct StyleEditingTests {
    static let edits: Set<String> = ["setPaintProperty", "setLayoutProperty", "setFilter", "addLayer", "removeLayer", "addSource"]

    /// `op` written into the style's JSON, as maplibre-gl-js's `Style` leaves it.
    static func written(_ op: [JSONValue], into style: JSONValue) -> JSONValue {
        guard case .object(var root) = style, case .string(let kind)? = op.first else { return style }
        let args = Array(op.dropFirst())
        var layers: [JSONValue] = if case .array(let l)? = root["layers"] { l } else { [] }
        func index(_ id: JSONValue?) -> Int? { layers.firstIndex { $0.member("id") == id } }
        func edit(_ id: JSONValue?, _ change: (inout [String: JSONValue]) -> Void) {
            guard let i = index(id), case .object(var layer) = layers[i] else { return }
            change(&layer)
            layers[i] = .object(layer)
        }
        switch kind {
        case "setPaintProperty", "setLayoutProperty":
            let group = kind == "setPaintProperty" ? "paint" : "layout"
            edit(args[0]) { layer in
                guard case .string(let name) = args[1] else { return }
                var members: [String: JSONValue] = if case .object(let m)? = layer[group] { m } else { [:] }
                members[name] = args.count > 2 && args[2] != .null ? args[2] : nil
                layer[group] = .object(members)
            }
        case "setFilter":
            edit(args[0]) { layer in layer["filter"] = args.count > 1 && args[1] != .null ? args[1] : nil }
        case "addLayer":
            layers.insert(args[0], at: (args.count > 1 ? index(args[1]) : nil) ?? layers.count)
        case "removeLayer":
            layers.removeAll { $0.member("id") == args[0] }
        case "addSource":
            guard case .string(let id) = args[0] else { break }
            var sources: [String: JSONValue] = if case .object(let s)? = root["sources"] { s } else { [:] }
            sources[id] = args[1]
            root["sources"] = .object(sources)
        default: break
        }
        root["layers"] = .array(layers)
        return .object(root)
    }

    /// `op` through the API.
    static func apply(_ op: [JSONValue], to document: inout StyleDocument) throws {
        guard case .string(let kind)? = op.first else { return }
        let a = Array(op.dropFirst())
        func text(_ i: Int) -> String { a.count > i ? a[i].string ?? "" : "" }
        switch kind {
        case "setPaintProperty": try document.setPaintProperty(text(1), a.count > 2 ? a[2] : nil, layer: text(0))
        case "setLayoutProperty": try document.setLayoutProperty(text(1), a.count > 2 ? a[2] : nil, layer: text(0))
        case "setFilter": try document.setFilter(a.count > 1 ? a[1] : nil, layer: text(0))
        case "addLayer": try document.addLayer(a[0], before: a.count > 1 ? a[1].string : nil)
        case "removeLayer": try document.removeLayer(text(0))
        case "addSource": try document.addSource(text(0), a[1])
        default: break
        }
    }

    /// What the two documents draw: layer order, sources, each layer's filter (present or not)
    /// and every property it sets, evaluated at `zoom`.
    static func summary(_ d: StyleDocument, zoom: Double) -> String {
        d.sources.keys.sorted().joined(separator: ",") + "\n" + d.layers.map { layer in
            let paint = layer.paintValues.keys.sorted().map { "\($0)=\(layer.paintValues[$0]!.evaluate(zoom: zoom))" }
            let layout = layer.layoutValues.keys.sorted().map { "\($0)=\(layer.layoutValues[$0]!.evaluate(zoom: zoom))" }
            return "\(layer.id) filter:\(layer.filter != nil) \(paint) \(layout)"
        }.joined(separator: "\n")
    }

    @Test func renderSuiteOperations_giveTheDocumentOfTheEditedJSON() throws {
        guard let root = try Fixtures.url("maplibre-render/render-tests") else { return }
        var checked = 0, refused: [String] = []
        for group in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            let groupURL = root.appendingPathComponent(group)
            for test in (try? FileManager.default.contentsOfDirectory(atPath: groupURL.path).sorted()) ?? [] {
                guard let data = try? Data(contentsOf: groupURL.appendingPathComponent(test).appendingPathComponent("style.json")),
                      let style = try? JSONDecoder().decode(JSONValue.self, from: data),
                      case .array(let ops)? = style.member("metadata")?.member("test")?.member("operations") else { continue }
                let list = ops.compactMap { op -> [JSONValue]? in if case .array(let a) = op { a } else { nil } }
                let kinds = Set(list.compactMap { $0.first?.string })
                guard !kinds.isDisjoint(with: Self.edits), kinds.isSubset(of: Self.edits.union(["wait"])) else { continue }
                var document = try StyleDocument(json: style), json = style
                for op in list where op.first?.string != "wait" {
                    do {
                        try Self.apply(op, to: &document)
                        json = Self.written(op, into: json)
                    } catch {
                        // Refused: the same change written into the JSON must give the decoder a
                        // problem it did not have before.
                        let before = try StyleDocument(json: json).diagnostics.count
                        let after = try StyleDocument(json: Self.written(op, into: json)).diagnostics.count
                        #expect(after > before, "\(group)/\(test): \(op) refused (\(error)) though the decoder accepts it")
                        refused.append("\(group)/\(test)")
                    }
                }
                let zoom = try StyleDocument(json: json).zoom ?? 0
                #expect(Self.summary(document, zoom: zoom) == Self.summary(try StyleDocument(json: json), zoom: zoom), "\(group)/\(test)")
                checked += 1
            }
        }
        #expect(checked >= 30, "only \(checked) render tests edit a style")
        print("style edits: \(checked) render tests, refused in \(refused)")
    }

    private func document() throws -> StyleDocument {
        try StyleDocument(data: Data("""
            {"version": 8, "sources": {"v": {"type": "vector", "tiles": ["local://t/{z}/{x}/{y}.mvt"]}},
             "layers": [{"id": "bg", "type": "background"},
                        {"id": "water", "type": "fill", "source": "v", "source-layer": "water", "paint": {"fill-color": "#0000ff"}}]}
            """.utf8))
    }

    /// Refused changes leave the document as it was and name the path, as MapLibre's errors do.
    @Test func refusedChanges_nameThePath_andChangeNothing() throws {
        var d = try document()
        #expect(throws: StyleDocumentError(path: "layers", message: "there is no layer \"roads\"")) {
            try d.setPaintProperty("line-width", .number(2), layer: "roads")
        }
        #expect(throws: StyleDocumentError(path: "layers[1].paint.line-width", message: "unknown property \"line-width\" for a fill layer")) {
            try d.setPaintProperty("line-width", .number(2), layer: "water")
        }
        do {
            try d.setPaintProperty("fill-opacity", .string("much"), layer: "water")
            Issue.record("a string fill-opacity was accepted")
        } catch { #expect(error.path == "layers[1].paint.fill-opacity") }
        #expect(d.layers[1].paint("fill-opacity")?.evaluate(zoom: 0) == .number(1))
        #expect(throws: StyleDocumentError(path: "layers", message: "cannot add a layer before \"roads\": no such layer")) {
            try d.addLayer(.object(["id": .string("x"), "type": .string("background")]), before: "roads")
        }
        do {
            try d.addLayer(.object(["id": .string("water"), "type": .string("background")]))
            Issue.record("a second layer \"water\" was added")
        } catch { #expect(error.path == "layers[2].id") }
        #expect(throws: StyleDocumentError(path: "sources.v", message: "source \"v\" cannot be removed while layer \"water\" uses it")) {
            try d.removeSource("v")
        }
        #expect(throws: StyleDocumentError(path: "sources.v", message: "source \"v\" already exists")) {
            try d.addSource("v", .object(["type": .string("geojson"), "data": .object(["type": .string("FeatureCollection"), "features": .array([])])]))
        }
        #expect(d.layers.map(\.id) == ["bg", "water"] && d.sources.keys.sorted() == ["v"])
    }

    /// Accepted changes: a value set and reset to its default, a layer added before another and
    /// removed, a filter set and removed, a source removed once no layer uses it.
    @Test func acceptedChanges_takeEffect() throws {
        var d = try document()
        try d.setPaintProperty("fill-opacity", .number(0.5), layer: "water")
        #expect(d.layers[1].paint("fill-opacity")?.evaluate(zoom: 0) == .number(0.5))
        try d.setPaintProperty("fill-opacity", nil, layer: "water")
        #expect(d.layers[1].paint("fill-opacity")?.evaluate(zoom: 0) == .number(1))
        try d.setLayoutProperty("visibility", .string("none"), layer: "water")
        #expect(!d.layers[1].isVisible)
        try d.addLayer(.object(["id": .string("land"), "type": .string("fill"), "source": .string("v"), "source-layer": .string("landuse")]), before: "water")
        #expect(d.layers.map(\.id) == ["bg", "land", "water"])
        try d.setFilter(.array([.string("=="), .string("class"), .string("park")]), layer: "land")
        #expect(d.layers[1].filter != nil)
        try d.setFilter(nil, layer: "land")
        #expect(d.layers[1].filter == nil)
        try d.removeLayer("land")
        try d.removeLayer("water")
        try d.removeSource("v")
        #expect(d.layers.map(\.id) == ["bg"] && d.sources.isEmpty)
    }
}

private extension JSONValue {
    var string: String? { if case .string(let s) = self { s } else { nil } }
}
