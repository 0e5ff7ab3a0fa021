import Foundation

/// A floor or gate that follows a recording's loudest level so far, so that a quietly mastered
/// recording is measured as a loud one is: the ``fixed`` level of a loud master, or ``depth``
/// decibels under the loudest level so far when that is lower, never under ``lowest``.
///
/// The mel bands' compression floor (``MelConfiguration/floorBelowLoudest``) and the pitch
/// fluctuation's floor and gate (``PitchFluctuationAccumulator``) are three of these
/// (docs/analyses/instrument-activity.md, "Quiet recordings").
struct FollowingLevel: Sendable, Hashable {
    /// The level of a loud master, dB.
    var fixed: Float
    /// Decibels under the loudest level so far; 0 keeps ``fixed``.
    var depth: Float
    /// The lowest the level goes, dB.
    var lowest: Float = -.infinity

    /// The level, dB, for the loudest level so far `loudest` (dB; −∞ before anything sounded,
    /// which keeps ``fixed``).
    func level(loudest: Float) -> Float {
        guard depth > 0, loudest.isFinite else { return fixed }
        return max(lowest, min(fixed, loudest - depth))
    }
}
