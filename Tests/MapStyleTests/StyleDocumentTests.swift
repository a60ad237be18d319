import Foundation
import GeoCore
import MapStyle
import Testing

/// Style documents decoded against v8.json: defaults, fallbacks with their JSON paths, and the
/// documents that are not styles at all.
@Suite struct StyleDocumentTests {
    private func style(_ text: String) throws -> StyleDocument { try StyleDocument(data: Data(text.utf8)) }

    @Test func decodesRootSourcesAndLayers() throws {
        let s = try style("""
            {"version": 8, "name": "t", "center": [7.42, 43.73], "zoom": 14.5, "bearing": 30, "pitch": 0,
             "sources": {"g": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 0]}},
                         "v": {"type": "vector", "tiles": ["local://tiles/{z}-{x}-{y}.mvt"], "maxzoom": 14}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ff0000"}},
                        {"id": "roads", "type": "line", "source": "v", "source-layer": "road", "minzoom": 5,
                         "filter": ["==", "class", "motorway"],
                         "paint": {"line-width": {"stops": [[10, 1], [20, 11]]}}}]}
            """)
        #expect(s.diagnostics.isEmpty)
        #expect(s.center?.longitude == 7.42 && s.center?.latitude == 43.73)
        #expect(s.zoom == 14.5 && s.bearing == 30)
        #expect(s.sources["v"]?.maxZoom == 14 && s.sources["g"]?.maxZoom == 18)
        #expect(s.layers.map(\.id) == ["bg", "roads"])
        #expect(s.layers[0].paint("background-color")?.evaluate(zoom: 0) == .color(StyleColor(red: 1, green: 0, blue: 0)))
        // Unset properties take v8.json's default: line-opacity 1, line-cap butt.
        #expect(s.layers[1].paint("line-opacity")?.evaluate(zoom: 0) == .number(1))
        #expect(s.layers[1].layout("line-cap")?.evaluate(zoom: 0) == .string("butt"))
        // A legacy zoom function, exponential base 1: 1 px at z10, 6 px at z15 (to 1e-9 px).
        let width = try #require(s.layers[1].paint("line-width")?.evaluate(zoom: 15).numberValue)
        #expect(abs(width - 6) < 1e-9)
        #expect(s.layers[1].minZoom == 5 && s.layers[1].shows(atZoom: 5) && !s.layers[1].shows(atZoom: 4.9))
        var motorway = ExpressionFeature()
        motorway.properties = ["class": .string("motorway")]
        var globals = ExpressionGlobals()
        globals.zoom = 14
        #expect(s.layers[1].filter?.matches(globals: globals, feature: motorway) == true)
    }

    @Test func badValuesFallBackToTheirDefaultWithTheirPath() throws {
        let s = try style("""
            {"version": 8, "sources": {},
             "layers": [{"id": "a", "type": "background", "paint": {"background-color": "not-a-colour", "background-opacity": 2,
                         "background-colour": "red"}, "layout": {"visibility": "maybe"}}]}
            """)
        let messages = s.diagnostics.map(\.description)
        #expect(messages.contains(#"layers[0].paint.background-color: color expected, "not-a-colour" found"#))
        #expect(messages.contains("layers[0].paint.background-opacity: 2 is greater than the maximum value 1"))
        #expect(messages.contains(#"layers[0].paint.background-colour: unknown property "background-colour""#))
        #expect(messages.contains(#"layers[0].layout.visibility: expected one of [none, visible], "maybe" found"#))
        let layer = try #require(s.layers.first)
        #expect(layer.paint("background-color")?.evaluate(zoom: 0) == .color(StyleColor(red: 0, green: 0, blue: 0)))
        #expect(layer.paint("background-opacity")?.evaluate(zoom: 0) == .number(1))
        #expect(layer.isVisible)
    }

    @Test func layersThatCannotBeDrawnAreLeftOutWithTheirPath() throws {
        let s = try style("""
            {"version": 8, "sources": {"v": {"type": "vector", "tiles": ["x/{z}/{x}/{y}"]}, "w": {"type": "warp"}},
             "layers": [{"id": "a", "type": "fill-extruded", "source": "v"}, {"id": "b", "type": "fill", "source": "nowhere"},
                        {"id": "c", "type": "fill", "source": "v"}, {"type": "line", "source": "v"},
                        {"id": "e", "type": "line", "source": "v", "source-layer": "road", "paint": {"line-width": ["+", 1, "x"]}},
                        {"id": "e", "type": "line", "source": "v", "source-layer": "road"}]}
            """)
        let messages = s.diagnostics.map(\.description)
        #expect(messages.contains { $0.hasPrefix(#"sources.w.type: expected one of ["#) && $0.hasSuffix(#""warp" found"#) })
        #expect(messages.contains { $0.hasPrefix("layers[0].type: expected one of [background, ") && $0.hasSuffix(#""fill-extruded" found"#) })
        #expect(messages.contains(#"layers[1].source: source "nowhere" not found"#))
        #expect(messages.contains(#"layers[2]: layer "c" must specify a "source-layer""#))
        #expect(messages.contains(#"layers[3]: missing required property "id""#))
        #expect(messages.contains { $0.hasPrefix("layers[4].paint.line-width[2]: ") })
        #expect(messages.contains(#"layers[5].id: duplicate layer id "e""#))
        #expect(s.layers.map(\.id) == ["e"])
        // The bad expression fell back to the default width, 1 px.
        #expect(s.layers[0].paint("line-width")?.evaluate(zoom: 0) == .number(1))
    }

    @Test func documentsThatAreNotV8StylesAreErrors() {
        #expect(throws: StyleDocumentError.self) { try style("{\"version\": 8, \"layers\": [") }
        #expect(throws: StyleDocumentError(path: "version", message: "expected one of [8], 7 found")) { try style(#"{"version": 7, "sources": {}, "layers": []}"#) }
        #expect(throws: StyleDocumentError.self) { try style("[8]") }
        do {
            _ = try style("{\n  \"version\": 8,\n  oops\n}")
            Issue.record("not JSON was decoded")
        } catch let error as StyleDocumentError {
            #expect(error.message.contains("line 3"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func anInterpolateWithAHundredThousandStopsDecodesInBoundedTime() throws {
        let stops = (0..<100_000).map { "\($0), \($0 * 2)" }.joined(separator: ", ")
        let text = #"{"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "background", "paint": {"background-opacity": ["interpolate", ["linear"], ["zoom"], "# + stops + "]}}]}"
        let start = ContinuousClock.now
        let s = try style(text)
        let elapsed = ContinuousClock.now - start
        // Zoom 0…99,999 maps to 0…199,998, limited to the property's range 0…1.
        #expect(s.layers.first?.paint("background-opacity")?.evaluate(zoom: 0.25) == .number(0.5))
        #expect(s.layers.first?.paint("background-opacity")?.evaluate(zoom: 10) == .number(1))
        #expect(elapsed < .seconds(120))  // linear in the stops; a quadratic parse would take hours
    }
}
