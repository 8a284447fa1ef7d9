/**
 * A certificate for 127.0.0.1 signed by "Private test CA", a CA whose own certificate is nowhere in this
 * repository: a server that sends this leaf alone is what a TLS proxy of a company network looks like to Node
 * (it cannot verify the first certificate). Valid until 2126.
 */
export const PRIVATE_CA_LEAF_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgCVHdZJY0BTtp/QZA
O04SklfzRFex1yHOMuQpr7SGVVChRANCAARYti9mBikZ64X2BYlsFkmSm8WnuzYr
Z4IMsrxYQZ9n4rCTJYqEY2ETimQ+c6RioucsJA5qLUHt4fZEC8mJiaFY
-----END PRIVATE KEY-----
`

export const PRIVATE_CA_LEAF_CERT = `-----BEGIN CERTIFICATE-----
MIIBjzCCATagAwIBAgIUXP2wVcVOFntbilUt5qB65abT/LQwCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPUHJpdmF0ZSB0ZXN0IENBMCAXDTI2MTEyNzAxNTQyMloYDzIx
MjYxMTAzMDE1NDIyWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAARYti9mBikZ64X2BYlsFkmSm8WnuzYrZ4IMsrxYQZ9n4rCT
JYqEY2ETimQ+c6RioucsJA5qLUHt4fZEC8mJiaFYo14wXDAPBgNVHREECDAGhwR/
AAABMAkGA1UdEwQCMAAwHQYDVR0OBBYEFMvBW32Q5lWYLPOhubWwqEFwprhNMB8G
A1UdIwQYMBaAFETar9zyLKtti3FqI53HT6Qmlg/IMAoGCCqGSM49BAMCA0cAMEQC
IDE16bGg8Brrchg6eerbg9bMXfcDzCmFOu7TBageuEBRAiAuZhMPU+SqiY6nj4Wm
QnBa3naTc7etR9+z7H/rvC7SuA==
-----END CERTIFICATE-----
`
