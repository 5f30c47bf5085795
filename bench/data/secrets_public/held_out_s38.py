"""Build held_out_s38.json: two more sources' own secret-scrubbing test material, held out (session 38).

    python bench/data/secrets_public/held_out_s38.py

Typed from the files (repository, commit and path per block below) and committed before any detector here ran on
them. Neither source was read here before:

* americanexpress/earlybird (Apache-2.0): the scanner's false-positive filter tests (``pkg/scan/falsePositives_test.go``:
  each hit's line with ``wantIsFP``), its post-processors' tests (password validation, same key/value, Basic auth
  header, JWT; ``pkg/postprocess/*_test.go``), its line-scan tests (``pkg/scan/scan_test.go``), the ``Example`` of
  each rule in ``config/rules/password-secret.yaml`` (secrets) and the ``Example`` of each non-secret rule in
  ``config/rules/content.yaml`` (phone numbers, e-mail, IP and MAC addresses, national ids, IBANs, passports, weak
  crypto calls, comments: what a secret redactor must leave alone).
* DataDog/datadog-agent (Apache-2.0): the agent's scrubber tests (``pkg/util/scrubber/default_test.go``: each
  ``assertClean(input, expected)`` pair; an input the scrubber changes holds a secret, a line it leaves alone is
  must-not-fire), its YAML fixture (``test/conf.yaml`` against ``conf_scrubbed.yaml``) and the map entries of its
  YAML scrubber tests (``yaml_scrubber_test.go``; Go source lines ``"key": "value",``).

Labels are the sources' (a line the scrubber or the scanner reports is a secret, one it keeps or filters out is
must-not-fire), with the exceptions the ``SKIPPED`` table lists. ``secret`` is set per case by hand: the assigned
value, a URL's password, the token after the scheme, the first body line of a private key. A case whose secret also
appears elsewhere in its text (``mysql_password: password``) cannot be scored (a redacted value would still be
found) and is left out; so is a text or a value (12+ characters) another part already holds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
EB, DD = "americanexpress/earlybird", "DataDog/datadog-agent"
LICENSES = {EB: "Apache-2.0", DD: "Apache-2.0"}
OTHER_CORPORA = ("gitleaks.json", "detect_secrets.json", "noseyparker.json", "kingfisher.json", "held_out.json",
                 "kingfisher_3.json", "kingfisher_4.json", "kingfisher_5.json", "held_out_secretlint_trivy.json",
                 "held_out_s34.json", "held_out_s35.json", "held_out_s36.json", "held_out_s37.json")


def S(text: str, secret: str, repeated: bool = False, g: str = "") -> tuple[str, str, bool, str]:
    """A secret case: the text and the value in it that must not survive (``repeated``: the value is written more
    than once, each time as a value, so every copy must go; ``g``: the rule it belongs to, when not the block's)."""
    return text, secret, repeated, g


def B(text: str, g: str = "") -> tuple[str, None, bool, str]:
    """A must-not-fire case."""
    return text, None, False, g


# (repository, commit, path, group, [cases])
BLOCKS = [
    (EB, "25fc9143a3f227c963e34ea6bc9cc03cfabb983e", "pkg/scan/falsePositives_test.go", "earlybird false-positive filter", [
        S('password = "StrongFinding5813!"', "StrongFinding5813!", g="3001"),
        B("password=None", g="3001"),
        B("<Password>password</Password>", g="3007"),
        S("<Password>abc13</Password>", "abc13", g="3007"),
        B("<passphrase>passphrase</passphrase>", g="3008"),
        S("<passphrase>abc13</passphrase>", "abc13", g="3008"),
        B('      "account_token": "EPQY2I6OK38NBKM",', g="6008"),
        B("      passphrase: pass,", g="3006"),
        B("    account_token: PropTypes.string.isRequired,", g="6008"),
        B('\t\t"secret" : "secret"', g="3026"),
        B("\t\t'secret' : 'secret'", g="3026"),
        S('\t\t"secret" : "do_not_use_this_in_production"', "do_not_use_this_in_production", g="3026"),
        S("\t\tclient-secret: do_not_use_this_in_production", "do_not_use_this_in_production", g="3033"),
        S("\t\tclientSecret: do_not_use_this_in_production", "do_not_use_this_in_production", g="3033"),
        S('\t\t"clientSecret": "do_not_use_this_in_production"', "do_not_use_this_in_production", g="3034"),
        S('\t\t"client-secret": "do_not_use_this_in_production"', "do_not_use_this_in_production", g="3034"),
        B("client_secret: grafana-client-secret", g="3034"),
        B("client_secret: some-client-secret", g="3034"),
        S("\t\tauth-key: do_not_use_this_in_production", "do_not_use_this_in_production", g="3035"),
        S('\t\t"auth-key": "do_not_use_this_in_production"', "do_not_use_this_in_production", g="3035"),
        S("\t\tsecret-key: do_not_use_this_in_production", "do_not_use_this_in_production", g="3036"),
        S('\t\t"secret-key": "do_not_use_this_in_production"', "do_not_use_this_in_production", g="3036"),
        B("\t\tcredentials: ******", g="3075"),
        S("\t\tcredentials: do_not_use_this_in_production", "do_not_use_this_in_production", g="3075"),
        S('\t\t"credential": "do_not_use_this_in_production"', "do_not_use_this_in_production", g="3075"),
        S("\t\tcredential: do_not_use_this_in_production", "do_not_use_this_in_production", g="3075"),
        B("credential: xxxxxxx", g="3075"),
        B("credentials= xxxxxxx", g="3075"),
        B("credential: 'xxxxxx'", g="3075"),
        B("credentials: 'xxxxxxx'", g="3075"),
        B("\t\tcredentials=include", g="3075"),
        B('\t\t"credentials" : "omit"', g="3075"),
        B("account_token = selected_card_account_token(accounts, selected_card)", g="6008"),
        S('"linked_account_token": "97XKNWNOVJR3U0Z",', "97XKNWNOVJR3U0Z", g="6008"),
        S('\t\tlet password = "do_not_use_this_in_production"', "do_not_use_this_in_production", g="3057"),
        S('\t\tlet password: String! = "do_not_use_this_in_production"', "do_not_use_this_in_production", g="3057"),
        B("\t\tvar txtFieldPassword: UITextField! = nil", g="3057"),
        B('\t\t"Password": "Lösenord"', g="3001"),
        B('\t\t"Password"= "Lösenord"', g="3001"),
        B("client_secret: 'None'", g="3033"),
        B("client_secret_key : 'e2.api.client.secret.key'", g="3036"),
        S("client_secret_key : 'valid_password'", "valid_password", g="3036"),
        B("db_password=password", g="3057"),
        B('"connectionString": "CloudConnector;USE_ZORBA2;SourceName=eloqua;tokenType=userPassword;user=@user;'
          'password=@password"', g="3057"),
        B("  USE_CREDENTIALS: 'use-credentials'", g="3075"),
        B("api.auth.Password: /foo/bar/Password.js", g="3057"),
        B("password=PASSWORD", g="3057"),
        B('client_credentials="not a valid password"', g="3075"),
        B('client_credentials="key.to.password.value"', g="3075"),
        S('client_credentials="secretPassword123"', "secretPassword123", g="3075"),
        B("credentials = file(var.credPath)", g="3075"),
        S("credentials = fileSecret1234", "fileSecret1234", g="3075"),
        B('\t\t"\'{{\' .Data.data.privateKey | regexReplaceAll \\"-----BEGIN RSA PRIVATE KEY-----\\"', g="3023"),
        B("password: MONGO_DB_PASSWORD", g="3057"),
        B("password= COUCHBASE_DB_PASSWORD", g="3057"),
        B("ENV_VAR_SSLPASSWORD = 'KEYFILE_PASSWORD'", g="3001"),
        B('\t\tval DBpassword = appConfig.getString("db.jdbc.pwd")', g="3057"),
        B('\t\tString password = context.decrypt("%%MONGO_DB_PWD%%");', g="3057"),
        B("\t\tpassword = generatePassword(context)", g="3057"),
        B("authKey: GITHUB_AUTH_KEY", g="3035"),
        S("authKey: V3RyStr0nG@uThk3Y", "V3RyStr0nG@uThk3Y", g="3035"),
        S("Password=my_logo_i_passwd>what", "my_logo_i_passwd>what", g="3057"),
        S("CREDENTIALS=2727", "2727", g="3075"),
        B("\t\tString password = param[0];", g="3057"),
        S("\t\tString password = pa$$[@ee4@]", "pa$$[@ee4@]", g="3057"),
        B('\tconst val AUTHORIZATION_TOKEN = "Authorization Token",', g="3037"),
    ]),
    (EB, "02c8307ce4c400f79ed3d25867b9e18b22cf737f", "pkg/postprocess/validatePassword_test.go", "earlybird password validation", [
        B("$variable"),
        B("func()"),
        B("ignore me please"),
        B("password: ignore.me"),
        B("password: ignoreme==please"),
        S("my.property=propertyEqualDelimitedPassword", "propertyEqualDelimitedPassword"),
        S("my.property:propertyColonDelimitedPassword", "propertyColonDelimitedPassword"),
        S("my.property    =     propertySpacesAroundDelimited", "propertySpacesAroundDelimited"),
        S("my.property: sampleYmlPassword", "sampleYmlPassword"),
        S('"my.property": "sample%3YmlPassword"', "sample%3YmlPassword"),
        B("password: \u0049 \u0044 \u306e \u78ba \u8a8d \u3001 \u30d1 \u30b9 \u30ef \u30fc \u30c9 \u306e \u5909 \u66f4"),
        S("password: VeryStrong857!@$^&*#", "VeryStrong857!@$^&*#"),
        B('"password"= "Informationsb你好世界"'),
        B('"password": "L&#246;senord"'),
        B('"secret": "&#12497;&#12473;&#12527;&#12540;&#12489"'),
        S('"password": "VeryStrong$$\\u0049\\u0044"', "VeryStrong$$\\u0049\\u0044"),
        S("secret: VeryStrong857#", "VeryStrong857#"),
    ]),
    (EB, "ba42b884d7b77f911d270b9e7e3f291f239baa7b", "pkg/postprocess/skipSameKeyValue_test.go", "earlybird same key and value", [
        B("PASSWORD_DB : password_db"),
        B("DB_PASSWORD : db_password"),
        B("DB_PASSWORD : $db.password"),
        B("APISECRET: api.Secret"),
        B('"SECRET": "SECRET"'),
        S("password_couchbase: VeryStrong857#", "VeryStrong857#"),
        S("couchbase_password: VeryStrong857#", "VeryStrong857#"),
        B("api.appSecret=apiAppSecret"),
    ]),
    (EB, "44124e5778be390e48eec47a3a855ceb788a09b6", "pkg/postprocess/basicAuthHeader_test.go", "earlybird basic auth header", [
        S("Authorization: Basic dXNlbmFtZTpwYXNzd29yZA==", "dXNlbmFtZTpwYXNzd29yZA=="),
        B("Authorization: Basic acdefjhikl"),
    ]),
    (EB, "c9b653d4ce0ddd0a3c7dd0b36c7dae797e62f8d3", "pkg/postprocess/jwt_test.go", "earlybird jwt", [
        S("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJuYW1lIjoiQW1lcmljYW4gRXhwcmVzcyIsImFkbWluIjp0cnVlLCJpYXQiOjE1MTYy"
          "MzkwMjJ9.JieTvCL1z9dCSAoFAtYWkHEKswbfEQGXCVcej2g7n80",
          "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJuYW1lIjoiQW1lcmljYW4gRXhwcmVzcyIsImFkbWluIjp0cnVlLCJpYXQiOjE1MTYy"
          "MzkwMjJ9.JieTvCL1z9dCSAoFAtYWkHEKswbfEQGXCVcej2g7n80"),
        S("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVJ9.eyJhbGciOiJIUzINiIsInR5cCI6IkpXVCJ9.eyJhbGciOiJIUzI1NiIsInR5cCI6kpXVCJ9",
          "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVJ9.eyJhbGciOiJIUzINiIsInR5cCI6IkpXVCJ9.eyJhbGciOiJIUzI1NiIsInR5cCI6kpXVCJ9"),
        S("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjMxNTU4NjkxNzkzMDAwLCJuYW1lIjoiQW1lcmljYW4gRXhwcmVzcyIsImFkbWlu"
          "Ijp0cnVlLCJpYXQiOjE1MTYyMzkwMjJ9.wOSLG3VTKg7A2KoKu9WsuIiKIpl__PDWStw1CkmeOPs",
          "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjMxNTU4NjkxNzkzMDAwLCJuYW1lIjoiQW1lcmljYW4gRXhwcmVzcyIsImFkbWlu"
          "Ijp0cnVlLCJpYXQiOjE1MTYyMzkwMjJ9.wOSLG3VTKg7A2KoKu9WsuIiKIpl__PDWStw1CkmeOPs"),
    ]),
    (EB, "2a8404a1e9c2ab00a72405e86b4b0a0c314e52f0", "pkg/scan/scan_test.go", "earlybird line scan", [
        S('password = "SecretValue1673"', "SecretValue1673"),
        S("password=TrueFinding7842!", "TrueFinding7842!"),
        S("password = fall123", "fall123"),
        B("using fall in a general sentence should not error"),
        B("This is a false positive #SKIPME"),
        S("password = 'aReallyBadPassword'", "aReallyBadPassword"),
    ]),
    (EB, "15b0735220a662a84cdf8f9e8be684d5975f2d03", "config/rules/password-secret.yaml", "earlybird rule examples", [
        S("password = 'w2e3r4t5'", "w2e3r4t5", g="1074"),
        S("password = 'autumn2019'", "autumn2019", g="1074"),
        S("password = 'foobar'", "foobar", g="3001"),
        S("<password>foobar</password>", "foobar", g="3007"),
        S("<passphrase>foobar</passphrase>", "foobar", g="3008"),
        S("passwrd = 'foobar'", "foobar", g="3021"),
        S("passwd = 'foobar'", "foobar", g="3022"),
        S("secret = 'foobar'", "foobar", g="3026"),
        S("secretKey = 'foobar'", "foobar", g="3027"),
        S("oauth.appSecret = 'foobar'", "foobar", g="3029"),
        S("AWS Secret Access Key [None]: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKFE",
          "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKFE", g="3030"),
        S("Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "QWxhZGRpbjpvcGVuIHNlc2FtZQ==", g="3084"),
        S("'client_secret': 'foobar'", "foobar", g="3034"),
        S("auth_token='xxx123xxx345xxx678'", "xxx123xxx345xxx678", g="3037"),
        S("ya29Xaz65xnSOi45O5wyRaaeONDHqenVAMXmxObLMZq-vQihlleznZAbCHHWr6Gz3J7DKuyQf",
          "ya29Xaz65xnSOi45O5wyRaaeONDHqenVAMXmxObLMZq-vQihlleznZAbCHHWr6Gz3J7DKuyQf", g="3041"),
        S("AIzaSyQ4kHseoBZiO7anxQJ2IzlfzfMLjNU5ma_", "AIzaSyQ4kHseoBZiO7anxQJ2IzlfzfMLjNU5ma_", g="3043"),
        S("xoxa-123-123-123-012af", "xoxa-123-123-123-012af", g="3045"),
        S("xoxs-0260321744-0287945347-015035651542-oxtp6n0z7yibj63vndve9gsej96k5k4s",
          "xoxs-0260321744-0287945347-015035651542-oxtp6n0z7yibj63vndve9gsej96k5k4s", g="3047"),
        S("//registry.npmjs.org/:_authToken=77a13b56-f6c9-0294-57b0-b635f6260064", "77a13b56-f6c9-0294-57b0-b635f6260064", g="3048"),
        S("password=foobar", "foobar", g="3057"),
        S("mysql://joeblow:mypassword@foo.bar.baz/", "mypassword", g="3060"),
        S("'credential': 'foobar'", "foobar", g="3075"),
        S("'b6SxM4UwRm1dBqTG4zIVU6rcBy1QhnfQKmSZOnmR6fS7ZvuCxf1C1uQFNI9CVWzH'",
          "b6SxM4UwRm1dBqTG4zIVU6rcBy1QhnfQKmSZOnmR6fS7ZvuCxf1C1uQFNI9CVWzH", g="5001"),
    ]),
    (EB, "2a8404a1e9c2ab00a72405e86b4b0a0c314e52f0", "config/rules/content.yaml", "earlybird rule examples", [
        S("<ConsumerKey>foobar</ConsumerKey>", "foobar", g="3009"),
        S("<ConsumerSecret>foobar</ConsumerSecret>", "foobar", g="3010"),
    ]),
    (EB, "2a8404a1e9c2ab00a72405e86b4b0a0c314e52f0", "config/rules/content.yaml", "earlybird non-secret rule examples", [
        B("'480-123-1234'"),
        B("foo@bar.com"),
        B("8.8.8.8"),
        B("'2001:0db8:85a3:0000:0000:8a2e:0370:7334'"),
        B("123-45-7890"),
        B("'DE00 0000 0000 0000 0000 00'"),
        B("http://example.com/"),
        B("00:1B:44:11:3A:B7"),
        B("/*TODO FIXME fixed this bug with a temporary hack. TODO rewrite in future*/"),
        B("'2 98 39 FTUT4 270 18'"),
        B(" aaaPa0000a "),
        B(" aaaaa1234a "),
        B(" AAAA11010110HASBBBA0 "),
        B(" LB692783B "),
        B(" 6205398466GBR5472550F247957610 "),
        B(" 3FQ84GBUQ0THN1026257U9982208J24VDKZA1KB15H54 "),
        B("3DES(password)"),
        B("abcdefghijklmnopqrstuvwxyz0123456789"),
        B("500152-R-10396"),
        B("340/4782/5834"),
        B("92550824E222"),
        B("EULISU81S08O22BQ"),
        B('golang: package main\n\nimport (\n\t"fmt"\n\t"crypto/sha1"\n)\n\nfunc main() {\n\ts := "this is the string"\n\t'
          '\n\th := sha1.New()\n\th.Write([]byte(s))\n\tbs := h.Sum(nil)\n\t\n\tfmt.Printf("the hash %x", bs)\n}\n'),
        B("nodejs: const filename = process.argv[2];\nconst crypto = require('crypto');\nconst fs = require('fs');\n\n"
          "const hash = crypto.createHash('sha1');\n\nconst input = fs.createReadStream(filename);\n"
          "input.on('readable', () => {\n  // Only one element is going to be produced by the\n  // hash stream.\n"
          "  const data = input.read();\n  if (data)\n    hash.update(data);\n  else {\n"
          "    console.log(`${hash.digest('hex')} ${filename}`);\n  }\n});"),
        B('java: MessageDigest md = MessageDigest.getInstance("SHA-1");'),
        B('python: import hashlib\nm = hashlib.sha1()\nm.update(b"Nobody inspects")\nm.update(b" the spammish repetition")'
          "\nm.digest()"),
        B('python: import hashlib\nm = hashlib.new("ripemd160")\nm.update(b"Nobody inspects")\n'
          'm.update(b" the spammish repetition")\nm.digest()'),
        B('python: from hashlib import sha1\nm = sha1()\nm.update(b"Nobody inspects")\nm.update(b" the spammish repetition")'
          "\nm.digest()"),
    ]),
]

_DD_KEY = "aaaaaaaaaaaaaaaaaaaaaaaaaaaabbbb"
_DD_APP = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabbbb"
_PEM_BODY = [
    "MIICdQIBADANBgkqhkiG9w0BAQEFAASCAl8wggJbAgEAAoGBAOLJKRals8tGoy7K",
    "ljG6/hMcoe16W6MPn47Q601ttoFkMoSJZ1Jos6nxn32KXfG6hCiB0bmf1iyZtaMa",
    "idae/ceT7ZNGvqcVffpDianq9r08hClhnU8mTojl38fsvHf//yqZNzn1ZUcLsY9e",
    "wG6wl7CsbWCafxaw+PfaCB1uWlnhAgMBAAECgYAI+tQgrHEBFIvzl1v5HiFfWlvj",
    "DlxAiabUvdsDVtvKJdCGRPaNYc3zZbjd/LOZlbwT6ogGZJjTbUau7acVk3gS8uKl",
    "ydWWODSuxVYxY8Poxt9SIksOAk5WmtMgIg2bTltTb8z3AWAT3qZrHth03la5Zbix",
    "ynEngzyj1+ND7YwQAQJBAP00t8/1aqub+rfza+Ddd8OYSMARFH22oxgy2W1O+Gwc",
    "Y8Gn3z6TkadfhPxFaUPnBPx8wm3mN+XeSB1nf0KCAWECQQDlSc7jQ/Ps5rxcoekB",
    "ldB+VmuR8TfcWdrWSOdHUiLyoJoj+Z7yfrf70gONPP9tUnwX6MYdT8YwzHK34aWv",
    "8KiBAkBHddlql5jDVgIsaEbJ77cdPJ1Ll4Zw9FqTOcajUuZJnLmKrhYTUxKIaize",
    "BbjvsQN3Pr6gxZiBB3rS0aLY4lgBAkApsH3ZfKWBUYK2JQpEq4S5M+VjJ8TMX9oW",
    "VDMZGKoaC3F7UQvBc6DoPItAxvJ6YiEGB+Ddu3+Bp+rD3FdP4iYBAkBh17O56A/f",
    "QX49RjRCRIT0w4nvZ3ph9gHEe50E4+Ky5CLQNOPLD/RbBXSEzez8cGysVvzDO3DZ",
    "/iN4a8gloY3d",
]
_PEM = "cert_key: >\n\t\t   -----BEGIN PRIVATE KEY-----\n" + "".join(
    f"\t\t   {line}\n" for line in _PEM_BODY) + "\t\t   -----END PRIVATE KEY-----"
_DD_CONFIG = """dd_url: https://app.datadoghq.com
api_key: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
proxy: http://user:password@host:port
password: foo
auth_token: bar
auth_token_file_path: /foo/bar/baz
kubelet_auth_token_path: /foo/bar/kube_token
# comment to strip
network_devices:
  snmp_traps:
    community_strings:
    - 'password1'
    - 'password2'
log_level: info"""
_DD_ENV = """
\t"Env": [
\t\t"DD_API_KEY=3290abeefc68e1bbe852a25252bad88c",
\t\t"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
\t\t"DOCKER_DD_AGENT=yes",
\t\t"AGENT_VERSION=1:6.0",
\t\t"DD_AGENT_HOME=/opt/datadog-agent6/"
\t]"""

DD_DEFAULT = "0175978245b0ba284a66f5f2eca743c6e5c5c7e9"
BLOCKS += [
    (DD, DD_DEFAULT, "pkg/util/scrubber/default_test.go", "datadog api key in config", [
        S(f"api_key: {_DD_KEY}", _DD_KEY),
        S("api_key: AAAAAAAAAAAAAAAAAAAAAAAAAAAABBBB", "AAAAAAAAAAAAAAAAAAAAAAAAAAAABBBB"),
        S(f'api_key: "{_DD_KEY}"', _DD_KEY),
        S(f"api_key: '{_DD_KEY}'", _DD_KEY),
        S(f"api_key: |\n\t\t\t{_DD_KEY}", _DD_KEY),
        S(f"api_key: >\n\t\t\t{_DD_KEY}", _DD_KEY),
        S(f"   api_key:   '{_DD_KEY}'   ", _DD_KEY),
        S(f'\n\t\tadditional_endpoints:\n\t\t\t"https://app.datadoghq.com":\n\t\t\t- {_DD_KEY},\n'
          f'\t\t\t- bbbbbbbbbbbbbbbbbbbbbbbbbbbbaaaa,\n\t\t\t"https://dog.datadoghq.com":\n\t\t\t- {_DD_KEY},\n'
          "\t\t\t- bbbbbbbbbbbbbbbbbbbbbbbbbbbbaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbaaaa", True),
        B('container_id: "b32bd6f9b73ba7ccb64953a04b82b48e29dfafab65fd57ca01d3b94a0e024885"'),
    ]),
    (DD, DD_DEFAULT, "pkg/util/scrubber/default_test.go", "datadog app key in config", [
        S(f"app_key: {_DD_APP}", _DD_APP),
        S("app_key: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABBBB", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABBBB"),
        S(f'app_key: "{_DD_APP}"', _DD_APP),
        S(f"app_key: |\n\t\t\t{_DD_APP}", _DD_APP),
        S(f"   app_key:   '{_DD_APP}'   ", _DD_APP),
    ]),
    (DD, DD_DEFAULT, "pkg/util/scrubber/default_test.go", "datadog url password in config", [
        S("random_url_key: http://user:password@host:port", "password"),
        S("random_url_key: http://user:p@ssw0r)@host:port", "p@ssw0r)"),
        S("random_url_key: http://user:🔑🔒🔐🔓@host:port", "🔑🔒🔐🔓"),
        S("random_url_key: http://user:password@host", "password"),
        S("random_url_key: protocol://user:p@ssw0r)@host:port", "p@ssw0r)"),
        S('random_url_key: "http://user:password@host:port"', "password"),
        S("random_domain_key: 'user:password@host:port'", "password"),
        S("random_url_key: >\n\t\t\thttp://user:password@host:port", "password"),
        S("   random_url_key:   'mongodb+s.r-v://user:password@host:port'   ", "password"),
        S("   random_url_key:   'mongodb+srv://user:pass-with-hyphen@abc.example.com/database'   ", "pass-with-hyphen"),
        S("   random_url_key:   'http://user-with-hyphen:pass-with-hyphen@abc.example.com/database'   ",
          "pass-with-hyphen"),
        S("   random_url_key:   'http://user-with-hyphen:pass@abc.example.com/database'   ", "pass"),
    ]),
    (DD, DD_DEFAULT, "pkg/util/scrubber/default_test.go", "datadog key in text", [
        S("Error status code 500 : http://dog.tld/api?key=3290abeefc68e1bbe852a25252bad88c",
          "3290abeefc68e1bbe852a25252bad88c"),
        S("hintedAPIKeyReplacer : http://dog.tld/api_key=InvalidLength12345abbbb", "InvalidLength12345abbbb"),
        S("hintedAPIKeyReplacer : http://dog.tld/apikey=InvalidLength12345abbbb", "InvalidLength12345abbbb"),
        S(f"apiKeyReplacer: https://agent-http-intake.logs.datadoghq.com/v1/input/{_DD_KEY}", _DD_KEY),
        S("hintedAPPKeyReplacer : http://dog.tld/app_key=InvalidLength12345abbbb", "InvalidLength12345abbbb"),
        S("hintedAPPKeyReplacer : http://dog.tld/application_key=InvalidLength12345abbbb", "InvalidLength12345abbbb"),
        S(f"appKeyReplacer: http://dog.tld/{_DD_APP}", _DD_APP),
        S("Connection dropped : ftp://user:password@host:port", "password"),
        S(_DD_ENV, "3290abeefc68e1bbe852a25252bad88c"),
        B('\t\t"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",'),
        B('\t\t"DOCKER_DD_AGENT=yes",'),
        B('\t\t"AGENT_VERSION=1:6.0",'),
        B('\t\t"DD_AGENT_HOME=/opt/datadog-agent6/"'),
    ]),
    (DD, DD_DEFAULT, "pkg/util/scrubber/default_test.go", "datadog password in config", [
        S("mysql_pass: password", "password"),
        S("mysql_password: p@ssw0r)", "p@ssw0r)"),
        S("mysql_password: 🔑 🔒 🔐 🔓", "🔑 🔒 🔐 🔓"),
        S("pwd: 'password'", "password"),
        S("pwd: p@ssw0r", "p@ssw0r"),
        S("cert_key_password: p@ssw0r", "p@ssw0r"),
        S("cert_key_password: 🔑 🔒 🔐 🔓", "🔑 🔒 🔐 🔓"),
    ]),
    (DD, DD_DEFAULT, "pkg/util/scrubber/default_test.go", "datadog snmp community and keys", [
        S("community_string: password", "password"),
        S("authKey: password", "password"),
        S("privKey: password", "password"),
        S("community_string: p@ssw0r)", "p@ssw0r)"),
        S("community_string: 🔑 🔒 🔐 🔓", "🔑 🔒 🔐 🔓"),
        S('community_string: "password"', "password"),
        S("   community_string:   'password'   ", "password"),
        S("\nnetwork_devices:\n  snmp_traps:\n    community_strings:\n\t\t- 'password1'\n\t\t- 'password2'\n"
          "other_config: 1\nother_config_with_list: [abc]\n", "password1"),
        S("\nnetwork_devices:\n  snmp_traps:\n    community_strings: ['password1', 'password2']\nother_config: 1\n"
          "other_config_with_list: [abc]\n", "password2"),
        S("community: password", "password"),
        S("authentication_key: password", "password"),
        S("privacy_key: password", "password"),
        B("other_config: 1"),
        B("other_config_with_list: [abc]"),
        B("foobar: baz"),
    ]),
    (DD, DD_DEFAULT, "pkg/util/scrubber/default_test.go", "datadog private key in config", [
        S(_PEM, _PEM_BODY[0]),
    ]),
    (DD, DD_DEFAULT, "pkg/util/scrubber/default_test.go", "datadog agent config", [
        S(_DD_CONFIG, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
        B("dd_url: https://app.datadoghq.com"),
        B("auth_token_file_path: /foo/bar/baz"),
        B("kubelet_auth_token_path: /foo/bar/kube_token"),
        B("log_level: info"),
    ]),
    (DD, "c8a04fcebaac745c798e8c3f7d7d803e10029599", "pkg/util/scrubber/default_test.go", "datadog bearer token", [
        S("Bearer 2fe663014abcd1850076f6d68c0355666db98758262870811cace007cd4a62ba",
          "2fe663014abcd1850076f6d68c0355666db98758262870811cace007cd4a62ba"),
        S('Error: Get "https://localhost:5001/agent/status": net/http: invalid header field value "Bearer '
          '260a9c065b6426f81b7abae9e6bca9a16f7a842af65c940e89e3417c7aaec82d\\n\\n" for key Authorization',
          "260a9c065b6426f81b7abae9e6bca9a16f7a842af65c940e89e3417c7aaec82d"),
    ]),
    (DD, "2f4593ac3002089ee60dedb86527838c42fa40eb", "pkg/util/scrubber/test/conf.yaml", "datadog conf.yaml fixture", [
        S(f"list_api_key: [{_DD_KEY}, {_DD_KEY}]", _DD_KEY, True),
        S(f"dict_app_key: {{one: {_DD_APP}, two: {_DD_APP}}}", _DD_APP, True),
        S("random_url_key7:   'mongodb+s.r-v://user:password@host:port'", "password"),
        S("pass: p@ssw0r", "p@ssw0r"),
        S("password: p@ssw0r", "p@ssw0r"),
        S("token: 123465749798", "123465749798"),
        B("container_id: b32bd6f9b73ba7ccb64953a04b82b48e29dfafab65fd57ca01d3b94a0e024885"),
    ]),
    (DD, "0be8bc45dea08b241c67abbda604dea7cb449307", "pkg/util/scrubber/yaml_scrubber_test.go", "datadog yaml map keys", [
        S('\t\t\t\t"password": "password123",', "password123", g="password"),
        B('\t\t\t\t"username": "user1",'),
        S('\t\t\t\t"community_string": "password123",', "password123", g="password"),
        B('\t\t\t\t\t"email":    "user@example.com",'),
        B('\t\t\tinput:    "Just a regular string.",'),
        S('\t\t\t\t"APIKEY":  "secret123",', "secret123", g="api key"),
        S('\t\t\t\t"API_KEY": "secret456",', "secret456", g="api key"),
        S('\t\t\t\t"ApiKey":  "secret789",', "secret789", g="api key"),
        S('\t\t\t\t"api-key": "secret345",', "secret345", g="api key"),
        S('\t\t\t\t"Authorization": "auth456",', "auth456", g="authorization"),
        S('\t\t\t\t"authority":     "auth789",', "auth789", g="authorization"),
        S('\t\t\t\t"X-API-KEY":              "key123",', "key123", g="api key"),
        S('\t\t\t\t"X-Auth-Token":           "token456",', "token456", g="token"),
        S('\t\t\t\t"X-DreamFactory-Api-Key": "dreamkey789",', "dreamkey789", g="api key"),
        S('\t\t\t\t"X-Rundeck-Auth-Token":   "rundeck345",', "rundeck345", g="token"),
        S('\t\t\t\t"X-SunGard-IdP-API-Key":  "sungard901",', "sungard901", g="api key"),
        S('\t\t\t\t"X-VTEX-API-AppKey":      "vtex234",', "vtex234", g="api key"),
        S('\t\t\t\t"X-Octopus-ApiKey":       "octopus567",', "octopus567", g="api key"),
        S('\t\t\t\t"x-rapidapi-key":         "rapid456",', "rapid456", g="api key"),
        S('\t\t\t\t"x-functions-key":        "func789",', "func789", g="api key"),
        S('\t\t\t\t"Sec-WebSocket-Key": "websocket456",', "websocket456", g="api key"),
        S('\t\t\t\t"cainzapp-api-key":  "cainz012",', "cainz012", g="api key"),
        B('\t\t\t\t"key":               "key345", // Too generic - not scrubbed'),
        B('\t\t\t\t"key1":              "key678", // Too generic - not scrubbed'),
        S('\t\t\t\t"statuskey":         "status234",', "status234", g="api key"),
        B('\t\t\t\t"regular_config":   "should_not_be_scrubbed",'),
        B('\t\t\t\t"some_other_value": "also_not_scrubbed",'),
        B('\t\t\t\t"normal_setting":   "keep_as_is",'),
        B('\t\t\t\t"database_host":    "localhost",'),
        B('\t\t\t\t"port":             "8080",'),
        B('\t\t\t\t"api_endpoint":     "https://api.example.com",'),
        B('\t\t\t\t"username":         "testuser",'),
        B("\t\tresult, err := ScrubYamlString(`api_key: ENC[my_secret]`)"),
        B("\t\tresult, err := ScrubYamlString(`api_key: ENC[]`)"),
        B('\t\t\t\t"password": "ENC[db_pass]",'),
        S('\t\t\t\t"token":    "plain_token",', "plain_token", g="token"),
        S('\t\t\t\t\t"password": "plain_secret",', "plain_secret", g="password"),
        S('\t\t\t\t\t\t\t"x-auth-token": "primary_token_456",', "primary_token_456", g="token"),
        S('\t\t\t\t\t\t\t"x-api-secret": "primary_secret_789",', "primary_secret_789", g="secret"),
        S('\t\t\t\t\t\t\t"x-goog-api-key":      "google_key_abc",', "google_key_abc", g="api key"),
        S('\t\t\t\t\t\t\t"x-consul-token":      "consul_token_def",', "consul_token_def", g="token"),
        S('\t\t\t\t\t\t\t"x-vault-token":           "vault_token_123",', "vault_token_123", g="token"),
        S('\t\t\t\t\t\t\t"private-token":           "private_token_abc",', "private_token_abc", g="token"),
        S('\t\t\t\t\t\t\t\t"password":       "dbpass123",', "dbpass123", g="password"),
        B('\t\t\t\t\t\t\t"host": "localhost",'),
        B('\t\t\t\t\t\t\t\t"username":       "dbuser",'),
        S('\t\t\t\t\t\t\t\t"session_token": "redis_session_456",', "redis_session_456", g="token"),
        S('\t\t\t\t\t\t\t\t"x-sonar-passcode":    "sonar_passcode_123",', "sonar_passcode_123", g="password"),
        B('\t\t\t\t\t\t\t"name": "sonar",'),
    ]),
]

SKIPPED = {
    "not_a_credential": [
        "earlybird falsePositives_test.go: the hit on a package.json fragment (github URL, rule 3066), a log call "
        "naming a password (`logger.debug(\"Password is : ...\")`) and a bare `-----BEGIN RSA PRIVATE KEY-----` "
        "header line (no key body): the scanner reports them, but they hold no credential value to check",
        "earlybird content.yaml/password-secret.yaml: AKIAIOSFODNN7EXAMPLE (an access key id, an id as in the earlier "
        "parts), the private-key rules' examples (a header line only: `BEGIN RSA PRIVATE KEY`), `Mapbox Secure Key` (a "
        "phrase), the bare default-password words (`\"password\"`, `\"changeme\"`, 1q2w3e4r, kafka123, kafkae1, "
        "admin1, 1qaz@WSX, letmein: a dictionary hit with no key or context)",
        "earlybird ccnumber.yaml and inclusivity rules: card numbers and wording, not credentials (the earlier parts "
        "left credit cards out too)",
    ],
    "placeholders": [
        "earlybird falsePositives_test.go's three `INPUT_LABEL_GENERIC_PASSWORD` lines whose value is `xxxxxx` "
        "(reported by the scanner, but a placeholder)",
        "earlybird rule examples whose value is `xxxx` or `test` (pw, pass, pword, passphrase, appsecret, "
        "clientsecret, auth_key, secret_key, pwd, aws_access_key_id, google_access_token, google_api, slack_xoxb) and "
        "the shape templates of the Heroku, GitHub, Facebook and Twitter rules (`A0AAA0AA-aAaa-...`, "
        "`aaaAaA0A0a00...`: letters and digits standing for a character class)",
    ],
    "labels_contradict": [
        "earlybird's `'credentials' : 'same-origin'`: must-not-fire in a .ts file, a finding in a .java file (the "
        "label depends on the file name, which a text here does not carry)",
        "earlybird validatePassword_test.go's `password: VeryStrong$$の確 の` and `\"password\": \"VeryStrong$$你好\"` "
        "(ignored by the scanner for their non-ASCII characters, yet holding the start of a true positive's value)",
        "earlybird jwt_test.go's expired JWT and its five-part JWE (ignored by the scanner by their claims; a signed "
        "token in text is still a credential here, so labelling them must-not-fire would count a right redaction "
        "as a false positive); datadog's `AuthBearer <token>` (left alone by its scrubber, but holding a true "
        "positive's very token)",
    ],
    "no_context_or_not_scorable": [
        "earlybird validatePassword_test.go's bare values (`VeryStrong857#`, `fo`) and passwordStrength_test.go "
        "(bare passwords, no key), entropy_test.go (a bare string)",
        "datadog lines whose secret is also in the key (`mysql_password: password`, `password_mysql: password`, "
        "`mysql_password: \"password\"`, `mysql_password1: password`): a redacted value would still be found in the "
        "key, so the case cannot be scored; the `community_strings: []` block (no value); the CERTIFICATE twin of "
        "the private key case (same body); yaml_scrubber_test.go's map entries not listed (same shapes as those kept)",
        "datadog default_test.go at the newer commit c8a04fce was read only from its TestCertConfig on (the bearer "
        "token cases); the older copy (0175978) gives the rest; TestConfigFile's datadog.yaml was not read",
    ],
}


_VALUE = re.compile(r"[A-Za-z0-9_+/.~-]{16,}")
_KEY_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _distinct_values(text: str) -> list[str]:
    """The text's long random-looking runs (a digit and at least five different characters)."""
    return [t for t in _VALUE.findall(text) if any(ch.isdigit() for ch in t) and len(set(t)) >= 5
            and not _KEY_NAME.fullmatch(t)]


def main(out_path: Path | None = None) -> None:
    """Write the corpus (to ``out_path`` if given: the shape test rebuilds it there and compares)."""
    seen_texts: set[str] = set()
    their_values: set[str] = set()  # the other parts' secrets (12+ characters): none may be in a text here either
    for name in OTHER_CORPORA:
        for c in json.loads((HERE / name).read_text(encoding="utf-8"))["cases"]:
            seen_texts.add(c["text"])
            if c["label"] == "secret" and len(c["secret"]) >= 12:
                their_values.add(c["secret"])
    seen_blob = "\n".join(seen_texts)
    cases, duplicates, value_seen, counters, own_texts = [], [], [], {}, set()
    for repo, commit, path, block_group, items in BLOCKS:
        for text, secret, repeated, sub in items:
            group = f"{block_group} {sub}" if sub else block_group
            label = "benign" if secret is None else "secret"
            tag = "tp" if secret is not None else "fp"
            counters[(group, tag)] = n = counters.get((group, tag), 0) + 1
            cid = f"{group}/{tag}{n}"
            if text in seen_texts or text in own_texts:
                duplicates.append(cid)
                continue
            values = [secret] if secret is not None and len(secret) >= 12 else _distinct_values(text)
            if any(v in seen_blob for v in values) or any(v in text for v in their_values):
                value_seen.append(cid)
                continue
            if secret is not None and (text.count(secret) == 0 or (text.count(secret) > 1 and not repeated)):
                raise SystemExit(f"{cid}: the secret {secret!r} must occur once in the text (or be marked repeated)")
            own_texts.add(text)
            case = {"id": f"held-out-s38/{cid}", "group": group, "label": label, "text": text,
                    "source": f"{repo}@{commit} {path}", "license": LICENSES[repo]}
            if secret is not None:
                case["secret"] = secret
            cases.append(case)
    out = {
        "source": {
            "repo": f"{EB} and {DD}",
            "license": f"Apache-2.0 ({EB}), Apache-2.0 ({DD})",
            "paths": {EB: "pkg/scan/*_test.go, pkg/postprocess/*_test.go, config/rules/{password-secret,content}.yaml",
                      DD: "pkg/util/scrubber/{default_test.go,yaml_scrubber_test.go,test/conf.yaml}"},
            "commits": "per case",
            "split": ("held-out (fresh, session 38; typed and committed before any detector here ran on it; "
                      "neither source was read here before)"),
        },
        "skipped": {**SKIPPED, "already_in_another_corpus_or_repeated": duplicates,
                    "value_already_in_another_corpus": value_seen},
        "cases": cases,
    }
    (out_path or HERE / "held_out_s38.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    secrets = [c for c in cases if c["label"] == "secret"]
    print(f"{len(cases)} cases: {len(secrets)} secrets ({len({c['secret'] for c in secrets})} distinct), "
          f"{len(cases) - len(secrets)} benign; {len({c['group'] for c in secrets})} secret groups; "
          f"{len(duplicates)} duplicates skipped: {duplicates}; {len(value_seen)} with a value seen elsewhere: {value_seen}")


if __name__ == "__main__":
    main()
