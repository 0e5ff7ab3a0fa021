import Foundation

extension MusicUnderstandingSession {
    /// A value at a point in time: `{"time": s, "value": V}`.
    ///
    /// A `Float` or `Double` value that is not finite (the loudness of digital silence is
    /// minus infinity) is written as JSON `null` and read back as minus infinity.
    public struct TimedValue<Value: Sendable & Codable>: Sendable, Codable {
        /// Seconds from the start of the audio.
        public var time: Double
        /// The value at `time`.
        public var value: Value

        /// Creates a timed value.
        public init(time: Double, value: Value) {
            self.time = time
            self.value = value
        }

        enum CodingKeys: String, CodingKey { case time, value }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            time = try c.decode(Double.self, forKey: .time)
            if try c.decodeNil(forKey: .value), let v = NumericNull.negativeInfinity(as: Value.self) {
                value = v
            } else {
                value = try c.decode(Value.self, forKey: .value)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(ReportRounding.time(time), forKey: .time)
            try NumericNull.encode(value, forKey: .value, in: &c)
        }
    }

    /// A value over a range of time: `{"range": {...}, "value": V}`.
    public struct RangedValue<Value: Sendable & Codable>: Sendable, Codable {
        /// The time span the value holds for.
        public var range: TimeRange
        /// The value over `range`.
        public var value: Value

        /// Creates a ranged value.
        public init(range: TimeRange, value: Value) {
            self.range = range
            self.value = value
        }

        enum CodingKeys: String, CodingKey { case range, value }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            range = try c.decode(TimeRange.self, forKey: .range)
            value = try c.decode(Value.self, forKey: .value)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(range, forKey: .range)
            try NumericNull.encode(value, forKey: .value, in: &c)
        }
    }
}

/// Encodes non-finite floating-point values as JSON `null` (the contract's "minus infinity").
enum NumericNull {
    static func encode<V: Encodable, K: CodingKey>(_ value: V, forKey key: K, in c: inout KeyedEncodingContainer<K>) throws {
        if let f = value as? Float {
            if f.isFinite { try c.encode(ReportRounding.level(Double(f)), forKey: key) } else { try c.encodeNil(forKey: key) }
        } else if let d = value as? Double {
            if d.isFinite { try c.encode(d, forKey: key) } else { try c.encodeNil(forKey: key) }
        } else {
            try c.encode(value, forKey: key)
        }
    }

    static func negativeInfinity<V>(as type: V.Type) -> V? {
        if V.self == Float.self { return (-Float.infinity) as? V }
        if V.self == Double.self { return (-Double.infinity) as? V }
        return nil
    }
}
