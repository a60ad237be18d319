/// `number-format` (spec v8): a number as text in the `en` locale conventions of CLDR (digits
/// grouped by three with `,`, `.` before the fraction), in decimal, currency or unit style.
/// Other locales fall back to `en`.
extension NumberFormatExpression {
    func evaluate(_ ctx: EvaluationContext) throws -> String {
        let value = try number.evaluate(ctx).number ?? .nan
        let currencyCode = try currency?.evaluate(ctx).string
        let unitName = try unit?.evaluate(ctx).string
        let minimum = try minFractionDigits?.evaluate(ctx).number
        let maximum = try maxFractionDigits?.evaluate(ctx).number
        let currencyInfo = currencyCode.map { NumberText.currencies[$0.uppercased()] ?? ($0.uppercased() + "\u{A0}", 2) }
        let defaultDigits = currencyInfo?.digits ?? 0
        let minDigits = Int(max(0, min(minimum ?? Double(defaultDigits), 100)))
        let maxDigits = Int(max(Double(minDigits), min(maximum ?? Double(currencyInfo != nil ? defaultDigits : max(minDigits, 3)), 100)))
        var text = NumberText.decimal(value.magnitude, minFraction: minDigits, maxFraction: maxDigits)
        if let currencyInfo { text = currencyInfo.symbol + text }
        if let unitName { text += NumberText.units[unitName] ?? " \(unitName)" }
        return value < 0 && text.contains(where: { $0 != "0" && $0.isNumber }) ? "-" + text : text
    }
}

enum NumberText {
    /// Currency symbol and fraction digits in `en` (CLDR), for the common ISO 4217 codes.
    static let currencies: [String: (symbol: String, digits: Int)] = [
        "USD": ("$", 2), "EUR": ("€", 2), "GBP": ("£", 2), "JPY": ("¥", 0), "CNY": ("CN¥", 2), "INR": ("₹", 2),
        "CAD": ("CA$", 2), "AUD": ("A$", 2), "CHF": ("CHF\u{A0}", 2), "KRW": ("₩", 0), "RUB": ("RUB\u{A0}", 2),
    ]

    /// The short `en` forms of the sanctioned ECMA-402 units (CLDR `unit/short`).
    static let units: [String: String] = [
        "meter": " m", "kilometer": " km", "centimeter": " cm", "millimeter": " mm", "mile": " mi", "foot": " ft",
        "inch": " in", "yard": " yd", "celsius": "°C", "fahrenheit": "°F", "degree": " deg", "percent": "%",
        "kilobyte": " kB", "megabyte": " MB", "gigabyte": " GB", "byte": " byte", "second": " sec", "minute": " min",
        "hour": " hr", "kilogram": " kg", "gram": " g", "liter": " L", "kilometer-per-hour": " km/h", "meter-per-second": " m/s",
        "mile-per-hour": " mph",
    ]

    /// A non-negative number with its shortest round-trip digits rounded half away from zero
    /// to `maxFraction` decimals, at least `minFraction` decimals, and `,` between thousands.
    static func decimal(_ value: Double, minFraction: Int, maxFraction: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : "∞" }
        var (digits, point) = JSNumber.decimalDigits(value)
        // Pad so the integer part exists and the fraction reaches maxFraction + 1 digits.
        if point <= 0 { digits = Array(repeating: 0, count: 1 - point) + digits; point = 1 }
        if digits.count < point { digits += Array(repeating: 0, count: point - digits.count) }
        let keep = point + maxFraction
        if digits.count > keep {
            let roundUp = digits[keep] >= 5
            digits = Array(digits[..<keep])
            if roundUp {
                var i = keep - 1
                while i >= 0 {
                    if digits[i] == 9 { digits[i] = 0; i -= 1 } else { digits[i] += 1; break }
                }
                if i < 0 { digits.insert(1, at: 0); point += 1 }
            }
        }
        var fraction = Array(digits[point...])
        while fraction.count > minFraction, fraction.last == 0 { fraction.removeLast() }
        while fraction.count < minFraction { fraction.append(0) }
        var whole = ""
        for (i, d) in digits[..<point].enumerated() {
            if i > 0, (point - i) % 3 == 0 { whole += "," }
            whole += String(d)
        }
        return fraction.isEmpty ? whole : whole + "." + fraction.map { String($0) }.joined()
    }
}
