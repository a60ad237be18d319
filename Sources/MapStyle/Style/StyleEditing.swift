public import GeoCore

/// The runtime style API of MapLibre's `Map` (maplibre-gl-js `Style`: `setPaintProperty`,
/// `setLayoutProperty`, `setFilter`, `addLayer`, `removeLayer`, `addSource`, `removeSource`;
/// `setStyle` is a new ``StyleDocument``). Each change is checked as decoding checks the same
/// JSON, and, as MapLibre does, one that does not validate is refused whole: the document stays
/// as it was and the error names the JSON path the value would have had.
extension StyleDocument {
    /// Sets (or with nil resets to its default) a paint property of layer `id`.
    /// - Throws: ``StyleDocumentError`` for a missing layer, a property the layer's type lacks,
    ///   or a value that does not validate against v8.json.
    public mutating func setPaintProperty(_ name: String, _ value: JSONValue?, layer id: String) throws(StyleDocumentError) {
        try setProperty(name, value, paint: true, layer: id)
    }

    /// Sets (or with nil resets to its default) a layout property of layer `id`.
    /// - Throws: as ``setPaintProperty(_:_:layer:)``.
    public mutating func setLayoutProperty(_ name: String, _ value: JSONValue?, layer id: String) throws(StyleDocumentError) {
        try setProperty(name, value, paint: false, layer: id)
    }

    /// Sets (or with nil removes) the filter of layer `id`.
    /// - Throws: ``StyleDocumentError`` for a missing layer or a filter that does not parse.
    public mutating func setFilter(_ filter: JSONValue?, layer id: String) throws(StyleDocumentError) {
        let index = try layerIndex(id)
        guard let filter, filter != .null else {
            layers[index].filter = nil
            return
        }
        do {
            layers[index].filter = try FeatureFilter(json: filter, globalState: globalState)
        } catch {
            let first = error.errors.first
            throw StyleDocumentError(path: "layers[\(index)].filter\(first?.key ?? "")", message: first?.message ?? "invalid filter")
        }
    }

    /// Adds a layer (its JSON, as in a style's `layers`) before layer `before`, or on top.
    /// - Throws: ``StyleDocumentError`` for a layer that does not decode without a problem (an
    ///   id already used, an unknown source, a bad property), or a `before` that is no layer.
    public mutating func addLayer(_ json: JSONValue, before: String? = nil) throws(StyleDocumentError) {
        let index = try before.map { id throws(StyleDocumentError) in
            guard let i = layers.firstIndex(where: { $0.id == id }) else {
                throw StyleDocumentError(path: "layers", message: "cannot add a layer before \"\(id)\": no such layer")
            }
            return i
        } ?? layers.count
        var ids = Set(layers.map(\.id)), problems: [StyleDiagnostic] = []
        let layer = StyleLayer(json: json, index: index, sources: sources, seenIDs: &ids, globalState: globalState, diagnostics: &problems)
        if let first = problems.first { throw StyleDocumentError(path: first.path, message: first.message) }
        guard let layer else { throw StyleDocumentError(path: "layers[\(index)]", message: "the layer cannot be drawn") }
        layers.insert(layer, at: index)
    }

    /// Removes layer `id`.
    /// - Throws: ``StyleDocumentError`` when there is no such layer.
    public mutating func removeLayer(_ id: String) throws(StyleDocumentError) {
        layers.remove(at: try layerIndex(id))
    }

    /// Adds source `id` (its JSON, as in a style's `sources`).
    /// - Throws: ``StyleDocumentError`` for an id already used or a source with a problem.
    public mutating func addSource(_ id: String, _ json: JSONValue) throws(StyleDocumentError) {
        guard sources[id] == nil else { throw StyleDocumentError(path: "sources.\(id)", message: "source \"\(id)\" already exists") }
        var problems: [StyleDiagnostic] = []
        let source = StyleSource(name: id, json: json, diagnostics: &problems)
        if let first = problems.first { throw StyleDocumentError(path: first.path, message: first.message) }
        guard let source else { throw StyleDocumentError(path: "sources.\(id)", message: "the source cannot be used") }
        sources[id] = source
    }

    /// Removes source `id`.
    /// - Throws: ``StyleDocumentError`` when there is no such source, or a layer still uses it.
    public mutating func removeSource(_ id: String) throws(StyleDocumentError) {
        guard sources[id] != nil else { throw StyleDocumentError(path: "sources.\(id)", message: "there is no source \"\(id)\"") }
        if let user = layers.first(where: { $0.source == id }) {
            throw StyleDocumentError(path: "sources.\(id)", message: "source \"\(id)\" cannot be removed while layer \"\(user.id)\" uses it")
        }
        sources[id] = nil
    }

    private func layerIndex(_ id: String) throws(StyleDocumentError) -> Int {
        guard let i = layers.firstIndex(where: { $0.id == id }) else {
            throw StyleDocumentError(path: "layers", message: "there is no layer \"\(id)\"")
        }
        return i
    }

    private mutating func setProperty(_ name: String, _ value: JSONValue?, paint: Bool, layer id: String) throws(StyleDocumentError) {
        let index = try layerIndex(id)
        let type = layers[index].type, path = "layers[\(index)].\(paint ? "paint" : "layout")"
        // A `-transition` companion animates a change; a static document has nothing to animate.
        if paint, name.hasSuffix("-transition"),
           StyleSpec.v8.property(layerType: type, paint: true, name: String(name.dropLast("-transition".count))) != nil {
            return
        }
        guard StyleSpec.v8.property(layerType: type, paint: paint, name: name) != nil else {
            throw StyleDocumentError(path: "\(path).\(name)", message: "unknown property \"\(name)\" for a \(type) layer")
        }
        var problems: [StyleDiagnostic] = []
        let decoded = StyleLayer.properties(.object([name: value ?? .null]), layerType: type, paint: paint, path: path,
                                            globalState: globalState, diagnostics: &problems)
        if let first = problems.first { throw StyleDocumentError(path: first.path, message: first.message) }
        if paint { layers[index].paintValues[name] = decoded[name] } else { layers[index].layoutValues[name] = decoded[name] }
    }
}
