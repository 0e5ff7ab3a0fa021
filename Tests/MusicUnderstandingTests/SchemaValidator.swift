import Foundation

/// A small JSON Schema (draft 2020-12) validator covering the keywords report.schema.json uses:
/// type, required, properties, additionalProperties, items, enum, const, minimum, maximum,
/// exclusiveMinimum, minLength and local $ref; also pattern and oneOf (for the JAMS schema).
struct SchemaValidator {
    let root: [String: Any]

    /// Loads the project's copy of the report schema (kept identical to ../shared/spec).
    static func reportSchema() throws -> SchemaValidator {
        guard
            let url = Bundle.module.url(forResource: "Resources/report.schema.json", withExtension: nil)
                ?? Bundle.module.url(forResource: "report.schema", withExtension: "json")
        else {
            throw CocoaError(.fileNoSuchFile)
        }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let dict = object as? [String: Any] else { throw CocoaError(.fileReadCorruptFile) }
        return SchemaValidator(root: dict)
    }

    /// Returns the violations of `data` (empty when valid).
    func validate(_ data: Data) -> [String] {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return ["not JSON"]
        }
        var errors: [String] = []
        check(value, against: root, at: "$", errors: &errors)
        return errors
    }

    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let ref = schema["$ref"] as? String, ref.hasPrefix("#/") else { return schema }
        var node: Any = root
        for part in ref.dropFirst(2).split(separator: "/") {
            guard let dict = node as? [String: Any], let next = dict[String(part)] else { return [:] }
            node = next
        }
        return node as? [String: Any] ?? [:]
    }

    private func typeName(_ v: Any) -> String {
        if v is NSNull { return "null" }
        if let n = v as? NSNumber {
            return n.doubleValue.rounded() == n.doubleValue ? "integer" : "number"
        }
        if v is String { return "string" }
        if v is [Any] { return "array" }
        if v is [String: Any] { return "object" }
        return "unknown"
    }

    private func check(_ value: Any, against raw: [String: Any], at path: String, errors: inout [String]) {
        let schema = resolve(raw)
        let actual = typeName(value)
        if let t = schema["type"] {
            let allowed = (t as? [String]) ?? [(t as? String) ?? ""]
            let ok = allowed.contains(actual) || (actual == "integer" && allowed.contains("number"))
            if !ok { errors.append("\(path): type \(actual), expected \(allowed)"); return }
        }
        if let c = schema["const"], "\(c)" != "\(value)" { errors.append("\(path): \(value) != const \(c)") }
        if let e = schema["enum"] as? [Any], !e.contains(where: { "\($0)" == "\(value)" }) {
            errors.append("\(path): \(value) not in enum")
        }
        if let n = value as? NSNumber, actual != "boolean" {
            let d = n.doubleValue
            if !d.isFinite { errors.append("\(path): non-finite number") }
            if let m = (schema["minimum"] as? NSNumber)?.doubleValue, d < m { errors.append("\(path): \(d) < minimum \(m)") }
            if let m = (schema["maximum"] as? NSNumber)?.doubleValue, d > m { errors.append("\(path): \(d) > maximum \(m)") }
            if let m = (schema["exclusiveMinimum"] as? NSNumber)?.doubleValue, d <= m { errors.append("\(path): \(d) <= exclusiveMinimum \(m)") }
        }
        if let s = value as? String, let m = (schema["minLength"] as? NSNumber)?.intValue, s.count < m {
            errors.append("\(path): shorter than \(m)")
        }
        if let s = value as? String, let p = schema["pattern"] as? String, let re = try? NSRegularExpression(pattern: p),
            re.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) == nil
        {
            errors.append("\(path): '\(s)' does not match \(p)")
        }
        if let options = schema["oneOf"] as? [[String: Any]] {
            let passing = options.filter { option in
                var e: [String] = []
                check(value, against: option, at: path, errors: &e)
                return e.isEmpty
            }.count
            if passing != 1 { errors.append("\(path): matches \(passing) of \(options.count) oneOf schemas") }
        }
        if let object = value as? [String: Any] {
            for key in (schema["required"] as? [String]) ?? [] where object[key] == nil {
                errors.append("\(path): missing required '\(key)'")
            }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, child) in object {
                if let sub = properties[key] as? [String: Any] {
                    check(child, against: sub, at: "\(path).\(key)", errors: &errors)
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    check(child, against: additional, at: "\(path).\(key)", errors: &errors)
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (i, child) in array.enumerated() { check(child, against: items, at: "\(path)[\(i)]", errors: &errors) }
        }
    }
}
