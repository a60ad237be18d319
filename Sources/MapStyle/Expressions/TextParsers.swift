import GeoCore

/// Parsing of the text operators: `format`, `image`, `number-format`, `collator`.
enum TextParsers {
    static func format(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count >= 2 else { return context.error("Expected at least one argument.") }
        if case .object = args[1] { return context.error("First argument must be an image or text section.") }
        var sections: [FormatSectionExpression] = []
        var optionsMayFollow = false
        for i in 1..<args.count {
            if optionsMayFollow, case .object(let options) = args[i] {
                optionsMayFollow = false
                func option(_ name: String, _ k: Int, _ type: ExpressionType) -> (present: Bool, parsed: Expression?) {
                    guard let value = options[name], value.isTruthy else { return (false, nil) }
                    return (true, context.parse(value, reportedAt: 1, slot: args.count + 4 * i + k, type))
                }
                let scale = option("font-scale", 0, .number)
                if scale.present, scale.parsed == nil { return nil }
                let font = option("text-font", 1, .array(.string, length: nil))
                if font.present, font.parsed == nil { return nil }
                let color = option("text-color", 2, .color)
                if color.present, color.parsed == nil { return nil }
                if case .string(let align)? = options["vertical-align"], !align.isEmpty, !["bottom", "center", "top"].contains(align) {
                    return context.error("'vertical-align' must be one of: 'bottom', 'center', 'top' but found '\(align)' instead.")
                }
                let align = option("vertical-align", 3, .string)
                if align.present, align.parsed == nil { return nil }
                sections[sections.count - 1].scale = scale.parsed
                sections[sections.count - 1].font = font.parsed
                sections[sections.count - 1].textColor = color.parsed
                sections[sections.count - 1].verticalAlign = align.parsed
            } else {
                guard let content = context.parse(args[i], reportedAt: 1, slot: i, .value) else { return nil }
                guard [.string, .value, .null, .resolvedImage].contains(content.type) else {
                    return context.error("Formatted text type must be 'string', 'value', 'image' or 'null'.")
                }
                optionsMayFollow = true
                sections.append(FormatSectionExpression(content: content))
            }
        }
        return .format(sections)
    }

    static func image(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2 else { return context.error("Expected two arguments.") }
        guard let name = context.parse(args[1], 1, .string) else { return context.error("No image name provided.") }
        return .image(name)
    }

    static func numberFormat(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 3 else { return context.error("Expected two arguments.") }
        guard let number = context.parse(args[1], 1, .number) else { return nil }
        guard case .object(let options) = args[2] else { return context.error("NumberFormat options argument must be an object.") }
        var failed = false
        func option(_ name: String, _ slot: Int, _ type: ExpressionType) -> Expression? {
            guard !failed, let value = options[name], value.isTruthy else { return nil }
            let parsed = context.parse(value, reportedAt: 1, slot: slot, type)
            if parsed == nil { failed = true }
            return parsed
        }
        let locale = option("locale", 0, .string)
        let currency = option("currency", 1, .string)
        let unit = option("unit", 2, .string)
        if failed { return nil }
        if currency != nil, unit != nil { return context.error("NumberFormat options `currency` and `unit` are mutually exclusive") }
        let minDigits = option("min-fraction-digits", 3, .number)
        let maxDigits = option("max-fraction-digits", 4, .number)
        if failed { return nil }
        return .numberFormat(NumberFormatExpression(number: number, locale: locale, currency: currency, unit: unit,
                                                    minFractionDigits: minDigits, maxFractionDigits: maxDigits))
    }

    static func collator(_ args: [JSONValue], _ context: ParsingContext) -> Expression? {
        guard args.count == 2 else { return context.error("Expected one argument.") }
        guard case .object(let options) = args[1] else { return context.error("Collator options argument must be an object.") }
        guard let caseSensitive = context.parse(options["case-sensitive"] ?? .bool(false), reportedAt: 1, slot: 0, .boolean),
              let diacriticSensitive = context.parse(options["diacritic-sensitive"] ?? .bool(false), reportedAt: 1, slot: 1, .boolean)
        else { return nil }
        var locale: Expression?
        if let value = options["locale"], value.isTruthy {
            guard let parsed = context.parse(value, reportedAt: 1, slot: 2, .string) else { return nil }
            locale = parsed
        }
        return .collator(caseSensitive: caseSensitive, diacriticSensitive: diacriticSensitive, locale: locale)
    }
}

extension JSONValue {
    /// JavaScript's truthiness of a JSON value (`if (options[name])`).
    var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let b): b
        case .number(let n): n != 0 && !n.isNaN
        case .string(let s): !s.isEmpty
        case .array, .object: true
        }
    }
}
