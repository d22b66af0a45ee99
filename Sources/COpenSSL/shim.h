// Deprecated OpenSSL APIs stay out: we use the EVP interfaces only.
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED 1
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/crypto.h>
// JWK public keys are built with OSSL_PARAM (EVP_PKEY_fromdata).
#include <openssl/bn.h>
#include <openssl/param_build.h>
#include <openssl/core_names.h>
