import GeoBase
/// The JSON metadata of a tile archive: TileJSON 3.0 fields with `vector_layers`
/// (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0), as PMTiles §6 and MBTiles 1.3
/// `json` expect.
public enum TileMetadata {
    /// The fields each layer of `MapSchema` may carry, for `vector_layers`.
    static let fields: [MapLayer: [String]] = [
        .water: ["class", "intermittent", "name", "name:latin", "name:nonlatin", "name_en", "name_int"],
        .waterway: ["class", "brunnel", "name", "name:latin", "name:nonlatin", "name_en", "name_int"],
        .landcover: ["class", "subclass"],
        .landuse: ["class"],
        .park: ["class", "name", "name:latin", "name:nonlatin", "name_en", "name_int"],
        .building: ["render_height", "render_min_height"],
        .transportation: ["class", "subclass", "brunnel", "oneway", "ramp", "layer", "service"],
        .transportationName: ["class", "subclass", "ref", "name", "name:latin", "name:nonlatin", "name_en", "name_int"],
        .boundary: ["admin_level", "maritime", "disputed"],
        .place: ["class", "name", "population", "capital", "name:latin", "name:nonlatin", "name_en", "name_int"],
        .poi: ["class", "subclass", "name", "name:latin", "name:nonlatin", "name_en", "name_int"],
        .pedestrian: ["class", "subclass", "brunnel", "name", "name:latin", "name:nonlatin", "name_en", "name_int"],
    ]

    /// The metadata object as JSON text.
    public static func json(name: String, minZoom: Int, maxZoom: Int) -> String {
        let layers = MapLayer.allCases.map { layer in
            let f = (fields[layer] ?? []).map { "\(JSONText.quoted($0)):\"String\"" }.joined(separator: ",")
            return "{\"id\":\(JSONText.quoted(layer.rawValue)),\"minzoom\":\(minZoom),\"maxzoom\":\(maxZoom),\"fields\":{\(f)}}"
        }.joined(separator: ",")
        return "{\"name\":\(JSONText.quoted(name)),\"format\":\"pbf\",\"type\":\"baselayer\",\"minzoom\":\(minZoom),\"maxzoom\":\(maxZoom),"
            + "\"attribution\":\"© OpenStreetMap contributors\",\"generator\":\"LocationKit geo tiles\",\"vector_layers\":[\(layers)]}"
    }

}
