import Foundation

extension StoreProduct {
    /// The price formatted for `locale` from ``price`` and ``currencyCode``
    /// with Foundation's currency format, such as `$4.99` (en_US, USD),
    /// `4,99 €` (de_DE, EUR) or `¥600` (ja_JP, JPY). The digits follow the
    /// currency's rules (no decimals for yen); the symbol, separators and
    /// spaces (non-breaking where the locale wants them) follow the locale.
    ///
    /// ``displayPrice`` stays what the store sent; this is computed here, so
    /// it is the same text on every platform Foundation runs on. Pass the
    /// storefront's locale to match the store; the default is the device's.
    public func formattedPrice(locale: Locale = .current) -> String {
        PriceFormat.currency(price, currencyCode: currencyCode, locale: locale)
    }

    /// The price per renewal period of a subscription: the
    /// ``formattedPrice(locale:)`` text, a slash, and the period in English —
    /// `$9.99/month`, `$24.99/3 months`, `4,99 €/week`, `¥1,200/year`. The
    /// unit words are English whatever the locale (`day`, `week`, `month`,
    /// `year`, with an `s` and the count when the period is more than one
    /// unit); an app that shows another language builds its own text from
    /// ``formattedPrice(locale:)`` and `subscription.period`.
    ///
    /// - Returns: nil when the product has no renewal period (it is not a
    ///   subscription, or a non-renewing one without a period).
    public func formattedPricePerPeriod(locale: Locale = .current) -> String? {
        guard let period = subscription?.period else { return nil }
        return formattedPrice(locale: locale) + "/" + PriceFormat.periodText(period)
    }
}

/// The formatting behind ``StoreProduct/formattedPrice(locale:)``, for the prices of offers too.
public enum PriceFormat {
    /// `amount` in `currencyCode`, formatted for `locale` with Foundation's currency format.
    public static func currency(_ amount: Decimal, currencyCode: String, locale: Locale) -> String {
        amount.formatted(.currency(code: currencyCode).locale(locale))
    }

    /// A period in English: `month` for one month, `3 months` for three.
    public static func periodText(_ period: SubscriptionPeriod) -> String {
        let word = period.unit.rawValue
        return period.value == 1 ? word : "\(period.value) \(word)s"
    }
}
