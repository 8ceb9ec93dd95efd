"""A tuning corpus for the secret and personal detectors of the content firewall.

Written by a helper from the family definitions (secret / personal / injection, see the
firewall spec): every line of bench/data/firewall_train_data.jsonl is
{"text": ..., "families": [...]}, families a sorted subset of ["injection", "personal",
"secret"], [] for a benign look-alike.

The sentences and carriers (chat, notes, config files, shell history, logs, emails, tickets,
CSV rows, JSON) are written by hand, one template per text, so no two texts differ only by a
swapped value. The values are drawn from a seeded random.Random and have the real shapes of
their formats: provider prefixes, lengths and alphabets, CRC32 checksums of GitHub/npm tokens,
signed JWTs, valid BIP-39 seed phrases, Luhn-valid cards, IBANs with correct check digits, and
national ids with their check digits (SSN ranges, NINO prefixes, NIR, Steuer-ID, DNI/NIE, NIF,
codice fiscale, BSN, Belgian NN, PESEL, personnummer, fodselsnummer, CPR, HETU, isikukood,
rodne cislo, CNP, TC Kimlik, Aadhaar/Verhoeff, Chinese RIC, My Number, RRN, CPF/CNPJ, CURP/RFC,
CUIL, RUT, SIN, TFN/Medicare, IRD, SA ID, Teudat Zehut, NRIC, NHS, KVNR). None is a real
credential or a real person's data.

Standard library only, no network, deterministic. Run: python bench/data/firewall_train_data_build.py
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import hmac
import json
import random
import re
import string
import unicodedata
import urllib.parse
import zlib
from pathlib import Path

SEED = 77_4_2025
R = random.Random(SEED)
OUT = Path(__file__).resolve().parent / "firewall_train_data.jsonl"

DIG = string.digits
UP = string.ascii_uppercase
LO = string.ascii_lowercase
ALNUM = UP + LO + DIG
HEXL = "0123456789abcdef"
HEXU = HEXL.upper()
B64 = ALNUM + "+/"
B64U = ALNUM + "-_"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
BASE62 = DIG + UP + LO


def rs(alpha: str, n: int) -> str:
    return "".join(R.choice(alpha) for _ in range(n))


def rbytes(n: int) -> bytes:
    return bytes(R.randrange(256) for _ in range(n))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def wrap(s: str, n: int = 64) -> str:
    return "\n".join(s[i : i + n] for i in range(0, len(s), n))


def ascii_fold(s: str) -> str:
    s = (
        s.replace("ß", "ss")
        .replace("ø", "o")
        .replace("Ø", "O")
        .replace("æ", "ae")
        .replace("ł", "l")
        .replace("Ł", "L")
    )
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


def luhn_check_digit(body: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def luhn_ok(num: str) -> bool:
    return luhn_check_digit(num[:-1]) == num[-1]


def rand_date(y0: int = 1952, y1: int = 2004) -> datetime.date:
    a = datetime.date(y0, 1, 1)
    b = datetime.date(y1, 12, 28)
    return a + datetime.timedelta(days=R.randint(0, (b - a).days))


# --------------------------------------------------------------------------------------------
# BIP-39 english word list (2048 words), zlib+base64; sha256 of " ".join(words) is checked.
_BIP39_BLOB = (
    "eNotmwmWrCoQRLdSW3NApUvBz1B29ep/3OCdPhWJighJkhP0NE9pzek1zfGM7St6BkHuDfxQriFxUXOZIa1Mi697WUV6VZ1l"
    "CbVC4urKy5L7oOPxEQNN6bEg99riosJ/PRbuluyXqd8ifVlaLmAZrbY+na9pnW7VWFd+cXFxPF9/1KDIFcF+gp8pLQEaIaHk"
    "mS9u2xQLJNP1rUz0Z5+iPrkHfvR5L0HlI0x6Fq+X34jlzkXPYoU751R0/5w7uOQjq3dn4PkZg9o6uT7DF8yP8Mp08MyJl+9j"
    "Eha1T4WaBS3oG+czfTWaa2qhF+hfTLtoHmh+XmKnupWm80uLaTlgVFqie5522kk7fUx7UfMpXrAuvX0rqZHFBTM05Xb4hfqY"
    "tJDSBI3/dWr9xoBAJP3uidHd+cw7V3eYCoRW77tYTO4S1WZZDsDzqyECtFl2WoRr5WIA5aLf5VJjRZ3iTqH70MDISokfX8E/"
    "vl1a2CwipUVXaE8u79dU+d2BJ7VOnvxag9H1au2XGqrtuNSPdpyh6bJldaW1aXlDAh1oLba+8uyfgPd/wthX5KrvFjLPQm9m"
    "e28Z6JcqfUKxCH3yMq0Zimg90zuAxajBPqFmuvNsXcx63nqkar+xvuZp/gqWI5xqWwV9ep5WtTlPu36nBXpG3hIVJWPzdM05"
    "iyT9QVLgTf/CSaVi2Z5hKtUrDVRNjfAtHs0aq6ZwDvosmICuOZ/DMrFwRenuHMIm0KqhvNNkODRkSBTv5nB6fYtquoRqOiS3"
    "mcIWuaqAGEvbDXEXeUKgpW+mibh8F/oSKb8p+O6QuDkWLkpTk3G8fjJ3Qs2Y8DImD+qc+NgZJp6jIObTbZ05G6umAOoBnt1A"
    "g72q9cyECNVC1vqcs4R6ztcs0OIVdLWX8xvgM1Ik9CYX1qoI8jqjzubcELJ5LLk5/+qn9iRa7mTxxEjmV5D6xQxFLYDhj4vI"
    "GEu0FJTIJJS4H7zuz5VYeZ6lbc9I4Q1DS05+OfP5Mta46MMjj7HP6Pi5rwywq3E12KUaT8lSj6e+388ZeAOnH6fVr4jDakyK"
    "nw/1so8rGAFfeo3JDO+VlsdE9a/x7++1TPPMIhHV4BdbmgXtXkV8/w1IsgWX4NKigtwCXpDaA5dgot4v6DQ/ybyZPhNNpa/v"
    "3f8+cMfm9+42+bOF3+wqmmvBnsFb4xQptFooVl4WvwQxUaU2t1e7m6OKGs47dKFaC3v2621U7EzVWEhCK5OFSV6CTK3mT+MI"
    "1A8X2nsJqcIJlbvvShROyOj2gR0SalKE1+3WDutMkVzBG4aLlnGzGtWybNkNLrwbgu9LmAQe7sHqlIleEB9MNY+QA+GVAjUy"
    "ZlQk+11JmJTIcvQFuyKaaLgXvR13+BtlSC46GAuLeokt/tE2DsYSP1pTy4ltFd5AidsX+gCU0EVCKXjhh1GdrIXltKET2TZQ"
    "61LozpyRlrIrMSenu3pK/MG+gg+Ndt7pyJRWvBl2ds9fngbCjCwt26FSL0vetgCh25m5yFoUC09R1UIsgBSlpJpql2HDXxCl"
    "b/kyM/J1Y0zVNLMKXbubSVuUaRTd7dCokEb7qUbUiwqtZL6ePhF1sqCBBNySMabGTcMFiUFLC/ig9L7b8ZCkj7jXPUrZMaY+"
    "d2y4SKkm1cMzw/M3y1IuKCyQ9S+yNfACkm+wQMpkPpbpOcE/NSzhpVLAdooE2giaXlQaC61E2CQFdoO4C/ICKaM7he6llJbm"
    "rfQlMq7SgzHS1dIvr+7Sk2t294MPyzGidp/1VO5Ahxv95jeU+9JLzCy0Lu4gTP3fCuuFtamGvLQkG9KfS4cHtkyrFPMqr2yn"
    "KPFZbZDX4XStkzXyCjtWL3zflMCtkueVlbwGmdsA0ahFFkyXSLhm6gZcZ8iJFInmMqrDykrBtTZpCS62UWujcTusazj9pTN+"
    "XPHCtIhEV0/RPUj2nUSpaZ9OJLjinWv0pRaMEC9AoocTtoaqKZpdCH6lxj1B3sCNYhKVhPKKeMmXGoK3aumemlVR9IcIIrVG"
    "udiSjtV9iiiKFarZW10t6js8kZysWugMJ+5W4qIJHbLGM1zy59Zon0cky/ejYIEXAepw5VUYIq3CYGVklmIVbyp02HAVbrNQ"
    "LBpTCydp5+OZiZ9cfPdP8r1mhygi3cp7lcpZpRaAWz6R6DWZJM9iluHkreSXDHQkd4R4xX9evbaEu6RPhNFpdbEyRB8BK2pE"
    "PKv0JXUjH5TgvcEbcENwXOtDoE9KRwukKNeOxPQhp/iyq9Xe6pmWH7q91q+0tr4XJkRaqL7J0ZcnKUyAZEMcjL6jFgQqySwI"
    "hqMmmrK8+oDL4sUf1ANYEDZrxLDvr2AfJkR7JuGc5TKFc3VZs1fowRl2xSFQs1dUUdMofCY4Lzmn0VNc1AKaZChE8NhEpLK4"
    "GzCD4co2vOG6z8zTOxPsiGrYCk3gv4iEhmUQcHPEYNGMRpT7ymAkY4wtbZaAkHaUgAhrMKTD0hLSD+2nkxUWFGnt4lXSYEwQ"
    "Dex7oSK6gaU4LgpveZ3o8pY0StjCf/gYQs0qPpB+9Kb4mVSkRyRfU+2UrqhYK3TidUVAXzC4R5JjeKTP4TiFJguvoSHNfowZ"
    "1op8U8ynJCf8mg+/0m5w5dcxvcjwMlQwy39lL1dTHJvwG6wjRcsSfeOYkC7RODP/v9GNmS2/vpER6vB7o6FEgj96mx2/WoJa"
    "NqLZbd1l9MEhmgi8+AZ+eLSvbcJHFtF4BFL3X9GViyhpEUpiNzxKQeX2ZUCCN2LqKpL4LdxIDYHeiFO3adiBbaIZdI8QeRWJ"
    "BLObY81NgV6BLVuYbGo2dayjyrYgiea1wE3FvAKuFI9zgxnYNEPx4zqsxM2OziYruUVMwhZHALpFrQ7h7vbhpuACmmsxuRsR"
    "jm2CYB+30XJb9DsMKOKmb9KFru5nXDd77Fv8fW2nAs3NsZSQCieDPxmiCOM4vXI3fK3tzH6KxyV0FS+t7eyK4TaHUxt8ztJb"
    "mxSlviItueFGbZkRZWdHNsIygRrz8iLKrL4gMNkI8tEcaC/RTlvFYfMmV8Ft2YvbnEbYFGdt0qHmUvFQipYROkQFeqQwinqo"
    "QR7SI7mzPMZL2hwnCXFXN/kauoXbsfXET3Zzk5trccNJ37onfZ8cRDnY3hWp/34hdu53+rDLy5VfjNYQmf9RYigRObYQ67ld"
    "8Yt+1G7UscTt8ie4UFC3o4o0f6JR/BQpvkm8IdIRgF3cc6cOBrRH1OaOvdjjjkbfh4DsUQZn47KoPQzHrmAaQDRFilGysZ/Y"
    "P+F1V2iejfKOhAzxzH5bc7kTTu8Ixp7XFcHamemdKd4dPChCktWaROstvu7MoYaLfRY3YL58gxmgF46ShQyhoOF2x8rCD26A"
    "zDufKuQRdoXJgIIXIXfz4gmQL3mD6l0he7N3hEdLmIa6h6agl/tyMcQXzfT+vV7HhPZy1KWgaxNcsigQi9uB8lLEJbf7IJrk"
    "TuFOkZAJP8gwwZfzJMf0vAV/rkKELzilmg5sKvhRM9jMQ/J4DPt4BC0P8Aq+uAVJv6KbcUV4DtUTSLsdaLtDjDxY74d0LRNz"
    "5HkGF3yPg4kQBCDilR5j/R0ELEdOrpOpc3Ot6TiyTcxhUyhpGoG0xeqQI0ex8xi1dSisOpDTo8vzBLGsIjSglalIAEpS8mAW"
    "FC2urlB8By70OpupXzIeLzzBSBJMMzS9nFYmSIy8JS+QIIeR6ydXwdSKLNpBj1e07YuaM/xlUfSHJBgLJ5J9c2QuRTvGIRJJ"
    "CGzeROGLyHC/pV/DLxjtzaiAyhORrdMIYsJ6QE5S0xFX4RI50PYiAZGUSm74vDH9BFf66X71Gi3iyQozGQAV5IILSZFTpxJu"
    "iYwXCQshNpqiDRMnGfDo8C+QPhWy4DPKn+iPDEsfC4ytJ/yWx3G6A7Vq8aqW+v1BfH5GqupnYsWI8Pv7e/1IdDGcogk8peN/"
    "wiNx+MmzflqxPzgVPxIOhAq36Icsk5BJ/SH2/unOUotEsfGHBIKT+G+5GlPJ+fVmTQtugYxjh35fb5IAb0mHfsnXiXLa5W6L"
    "av7f4rN+C2vlzZDf5AspP/H1TjJi7xQ3EMMlfF6n9I1+GoBQvZEaxBk9yc+fpKROwj3xSnzYubpb5rr4orlq06hP4j4w4XjL"
    "bE4vMhonUaCgYkwUYLi+QohTeoBymDZA602oucEHRn+fQTpbwv0aAi7EcJ0h1vGUlMI5bqVdukSkCvKNksGL9XPn4EihqAWF"
    "WAK5FlKdogU3ReLqFXLClBMzMWz8SQ7WCZaTxSTUFJ24I2f8DwNvP1dOOKaHmFNg9Sa3wKCKebaqlItA/+G3YgRZO/ZBJDQn"
    "GxuyI+Jlppvc6bzbMc02KnLZeVUxjB723X732R0wnz1NRi3as/+yks5vwcO92G7SarnUEWkDfVCYJMkX2z0X8aljs2v60Wxf"
    "zPAl5T5xm7uJrxA+sypE9wza5xbtroeDfEnvD6IuCHe3Wcany9sfLCWO1hQrX5guATy5nDJk4ZfoBpuvitywa2qjxm+85O1c"
    "2P1LsiJJvUiLCSwBF7bvCnjnDDGstKOQaxKeREIXefhrpBdEWNI4GR6HfAVBWbiFHF9WUJfzgRd+0kUs4QfN7bZDpuGS3WHE"
    "WnwWEvnRb8BycUVix4sVKRh9j8S7QiKESw7H4rdtVUhM8DEW7UXIzTQw/PgbaOHXi+DKM67cpcDnBDEBl9a6fmhJrYFINHiN"
    "+FpkcFcOnYaQ6ZVzYld2WyUR/F65SoKlG6+RG/8XIYq4JVknS4f3By6kUBCFpKSuvm087HRKAUC8JchXrx6YXmDQcnyde1cB"
    "hqDWru4tzOtbg1wJEYv79VUv08TiSbiJabqly0S8i5AkKV+hO5dGdJHYd0vkcRMhRZJmaH497M5Ipn9BdVK4rDhCFsUPK0/8"
    "855ZCr3BleSAI4WnCn71HPU8ZjZlRDtlIjoF9BHFmeQd+GZhrYjQ++wKbRrVm+GAy4koj0tUD2o2ddK6+t5Yv8kpR5KseXq/"
    "5FN+BbaL+nSU5El7LIxZ1MPIs+clzx+n7/Kip0KWBMkY2syK2l952/gFl+hC3jAAhB35LbcHPyhbY+Xze92aooyCIyn7Yo9H"
    "IiWG5+Q8nIjeuHn/JhDPdxyPb7sQ+fbs5LF3mQsuo4IYu4IjqyRUgKbJVjhDT4sT2CK747ZcyGu85FI5UzAEMvdm70J0XOEK"
    "iNjqZwJGMTW97HfhMetH6fe7c9fC9cp/jMXuzj151d4sZyfrboUoC2VFkQThE6hZuq1JhO7FPd3GQjx9T86V3iRabuTTZcnn"
    "jVK7rc1ulJggjprOWN9WZkmU1XRj3+7p67V7B3dC89d9UYA6+YmskrgC2/WbiOpFF83gLfvGWIKz3vptSIwoUyiC0WMj5z48"
    "fLmpWejsyX18tR7FvFshke7GxaONw9reMdCbuPMLtIJ3KWCk2D42XEjB3vGmnjxsHnvc8e9PLBw8lZvA58+RubvtWTmtqG67"
    "F6dTYzc2DdwBhOfOcrwEejnjzd/yygrII6y0iFTrze7vTeb/znJbXaVYCJ3A/VeocfZ7lXbkCWeIdc6N1MDP/CCeIxt2s+Ht"
    "TyjgopPk7eFrCZsfkyv2bR8FEW00UaQ/fDleRTqFF9IuOp6QHfGlZ6bEjxlS4h+IkrmgzjSJrt0tZVITIk4Ti1otiF7ZL+e8"
    "gfcYSCGSpJO5/asmJwLP3v3pM/H13dcVpSSOncD9Gi7/LV8UlXvbjbj7jYh1grq7l7GDpoJH0ItX/G21dZPcYFXe/e8PTn/V"
    "UzkXpO2oLZqabIFoYTX+10n1iAMyPJp3zA/wJ2BIinjRHIVjM6rk2Nf7Llp7mmFhzEJ1zgHxmCRpcOmmgm9aOAgC4gYPXaRo"
    "Wf0pTJv3EcrIJbDJTAOPfn9SMeMUincaiXP4eMATFnonuATvx4oENKYo4l/YnfBD74yU4HmTsNgIleDgR4Q1X8Ie3azCdJ7t"
    "FtoSfkbVc/oFvTYKxwi2l88ulGAfTWQ4MCrgWYhk9yOtvinj9bJmKsFaGkmNPLjxjkS8KkXJPZMJImCSGC/dJDhKVQFnVkQh"
    "i6tXLTN3qJLkU8fHa62MVhtbnSX0NEb2GeyTk0BnnJsqh2y7eBBnfmw2e5FYyXuhjE39Eje+b5OLSdCLiKmWDdc+X+M9fokg"
    "/kNxtrB4h6fgZxfvVmodZWP3haM2LRYncrxYBO/osrqEFJfs8Lg4Sz0O4BSsjRCHu/TZPCcQLlJRBXen9MSPYyyl4z5UdaAO"
    "2yLi6LtOGxeRh6cfn4QplaNPYAP4TsXfqSPRXIlCq+xGlXMnmusRRREpob3QiuEgt032MoAJKC7aXa4KY7g6wmWChqwci6KV"
    "RU5mLuqexNYb5ypo8dZFqwQk1mSP6/a9Pr9qmPjh2NexLCozX9neWCHIMrG4GwvL0BEVn6yy11nDbhtXvaMBUW+QYIm+VCgx"
    "b3XYhT4dfZQDHirEW2VV3BxtO8ASUQRc0bevejgWEFGwJnQSRxRmHHTg8NdIOcgTEi/JHou4Nj5NJVEkQIoq2SGQ2+RghTxk"
    "uQi7t2UqKR6hdDvPkIh6yBGmY4eGHWcfZ6ioNvsoNQYmzWLtvcIqJx52EC8ITl46/X0FDegDUYuCd7fraK0w2GhvpiL/iI0C"
    "hIrtqG9fOjcgEvkxapS5gN6/0fWV4F5wCUgm1HNojmqLWp3ZrCPiFaFWxk2rmP1qxjqPXS+0oJCGLyKSepHjEHLAoCaUtZBb"
    "CZlK5j1ub81cy1vlq9k72dU8z/K7amZWbOmFa3QddQocB0aq8zUcGsOhqYTMNfs+oVr1PGmaACSTXOc/LSZC124UYLX9rjhn"
    "fP8mJSGrKcebo3PjnoX3tux4S7gqhPBL5tTtgwgib1/weiRkrPdpxL221kS0b/fQOlcIcPBLSOqz3tZxVUa2Yh8DxOedCMt8"
    "Uq2OeEJkjbKionCzWRMoCGAlN+weG7UryIes0YRqtnlkLbipQANMPWmx/MIv46HFpbknzfPRMokDKIxuViBOowqZgoYd3bmU"
    "vuB7xbyQm+s2tCp297n7BKyo+zzyoIrkwD4CHFHcVRGUae3j8Gwlvqzdmd3aHcDUzmkaITn9lxNItTsNXTuV2I8Qctyx9tu3"
    "bwJSkWI9iGcr8P5Y5bgWiDPmwlD8lXMPvDNOUYo6zqrPP83ymNPPZJBdrw++upCvPlYrDyvnMS8fu8T1wT+o32uGi4qyOEtR"
    "vwXp/HpKxgxzANNkf/ncQJusJxqnnDS3wM1jbwU1kiiN/ImwaYJEfuOr+fRiY3e8Ib0Ee/oRSHCgNVYI5UKFSkmxbjvcPBn6"
    "ZpvRyBgKmPFmyRdSZFhCNXNkn+hqB6cKhHhEImJSI98NWrm0ccaloVxa3H3n5NqeTOPkiwRPbUsP41msQidfW0TZNxt1RbS4"
    "g6Lk6oWys3o581zcOHwROZzXfOwP8W1Uv8YhRIuxgL1KEas4C3WzyiKFqZ98Y+Htr2LthInzq6LNwX/jPE7LJIGa9Ep0z+zi"
    "NIcOjQC0ZfXQDmtztNjYWqLp4vRbs9cqTBWpbljd5pNDDX/0fPlc6HCumnmLfydEMTUfPWk+CinczU5ZIoBmsuI6iE9SaBW6"
    "Wnfx5IE8fHhU8I2EDJ0Z5nhQ6yNg+rdIW08TQCgsD4+Ekh09gaflCahikSRb3x7UojABtP2Ia1+k9Xs7zOy7vq+WpdDO6dXH"
    "UQMRnwZWvOGrcTBliI0wC3xEXYQ8RU9ji0mepn1qUY5mizRA71auSGMnUedYe5K0CbvPKfb0CVzezmb2e/cE9dvbQV0KW4Dm"
    "6DdapJdZ1s+KYjheePA+ci7gyHLHo5FE/Gu8jf8Z+EwLy02kS11/JmROnqrs2Gecgxf5cCvxY+/5M8k6CMdRrA8C//GG+icc"
    "EdZ8YDaXnMSAOEoXpelQZoBkICxgDj8Etx+OPpwiWux8K5rnH1LddC8u42txsV4nQMwve+0f9iR3qqY2qKwwDRT73aJ+r05A"
    "pKk67jfjh5E6y/3xQUkf/v7kk3OpUE6g++jTR+61mn/+gfr9TGruQd+hbwHSIQ/95UwOsmKt+5BKFicels3DFvFjTfh4A+LB"
    "P8aYPGNfUYSptaZ+iK1OiJXGE2b9RjgsHf5mpT2B89WSb+95PSjJR8x/vHv1oCOfIwykJTTlYxX54EoKHIE/6DsB32c34SGA"
    "fLCzrJKHLbMHwhM+TlblGdtejzetRGgzVsLYB+3zICvPvzMKTz43AUn6J3vFPOxXPig12xsnNwWni5rhxznKB33zFLKmDxtj"
    "jMmK7PHJjccG/ItK+8Kvb7Dd++bOj0d2pP6CpEhY8suptb+c/wcWUi83"
)
BIP39 = zlib.decompress(base64.b64decode(_BIP39_BLOB)).decode().split()
assert len(BIP39) == 2048
assert hashlib.sha256(" ".join(BIP39).encode()).hexdigest() == (
    "f18b9a84c83e38e98eceb0102b275e26438af83ab08f080cdb780a2caa9f3a6d"
)


def bip39_phrase(words: int = 12) -> str:
    ent_bits = {12: 128, 15: 160, 18: 192, 21: 224, 24: 256}[words]
    ent = rbytes(ent_bits // 8)
    cs_bits = ent_bits // 32
    h = hashlib.sha256(ent).digest()
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(ent_bits) + bin(h[0])[2:].zfill(8)[:cs_bits]
    return " ".join(BIP39[int(bits[i : i + 11], 2)] for i in range(0, len(bits), 11))


# --------------------------------------------------------------------------------------------
# Names per locale: (male first names, female first names, surnames)
NAMES = {
    "us": (
        ["James", "Michael", "Tyler", "Marcus", "Derek", "Brandon"],
        ["Emily", "Ashley", "Brianna", "Hannah", "Megan", "Lauren"],
        ["Carter", "Nguyen", "Walsh", "Hernandez", "Okafor", "Bennett", "Reed", "Sullivan"],
    ),
    "uk": (
        ["Oliver", "Harry", "George", "Callum", "Rhys"],
        ["Amelia", "Isla", "Poppy", "Freya", "Imogen"],
        ["Thompson", "Patel", "Hughes", "Whitfield", "Ashworth", "Clarke", "Doyle", "Pritchard"],
    ),
    "de": (
        ["Lukas", "Jonas", "Felix", "Tobias", "Florian"],
        ["Anna", "Leonie", "Katrin", "Miriam", "Jana"],
        ["Müller", "Schneider", "Fischer", "Weber", "Becker", "Hoffmann", "Schäfer", "Krüger"],
    ),
    "fr": (
        ["Louis", "Hugo", "Julien", "Mathieu", "Théo"],
        ["Camille", "Chloé", "Manon", "Léa", "Inès"],
        ["Martin", "Bernard", "Dubois", "Lefèvre", "Moreau", "Girard", "Rousseau", "Fontaine"],
    ),
    "es": (
        ["Javier", "Alejandro", "Pablo", "Sergio", "Diego"],
        ["Lucía", "Marta", "Carmen", "Elena", "Nuria"],
        ["García", "Fernández", "López", "Martínez", "Sánchez", "Romero", "Navarro", "Ortega"],
    ),
    "it": (
        ["Marco", "Luca", "Giovanni", "Matteo", "Davide"],
        ["Giulia", "Chiara", "Francesca", "Sara", "Valentina"],
        ["Rossi", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco", "Bruno"],
    ),
    "nl": (
        ["Daan", "Sander", "Joris", "Bram", "Thijs"],
        ["Sanne", "Fleur", "Lotte", "Eva", "Femke"],
        ["de Vries", "Jansen", "van den Berg", "Bakker", "Visser", "Smit", "Meijer", "de Boer"],
    ),
    "be": (
        ["Wouter", "Pieter", "Maxime", "Arnaud"],
        ["Elke", "Lien", "Aurélie", "Charlotte"],
        ["Peeters", "Janssens", "Maes", "Jacobs", "Claes", "Dupont", "Lambert"],
    ),
    "pl": (
        ["Piotr", "Krzysztof", "Tomasz", "Paweł", "Michał"],
        ["Anna", "Katarzyna", "Magdalena", "Agnieszka", "Zofia"],
        ["Nowak", "Kowalski", "Wiśniewski", "Wójcik", "Kamiński", "Lewandowski", "Zieliński"],
    ),
    "se": (
        ["Erik", "Lars", "Johan", "Oskar", "Anders"],
        ["Karin", "Elin", "Sofia", "Maja", "Ingrid"],
        ["Andersson", "Johansson", "Karlsson", "Nilsson", "Lindqvist", "Bergström"],
    ),
    "no": (
        ["Ole", "Henrik", "Magnus", "Sindre", "Eirik"],
        ["Ingrid", "Silje", "Kari", "Hanne", "Marit"],
        ["Hansen", "Johansen", "Olsen", "Larsen", "Haugen", "Bakken", "Solberg"],
    ),
    "dk": (
        ["Mads", "Rasmus", "Frederik", "Søren", "Anders"],
        ["Mette", "Sofie", "Ida", "Line", "Camilla"],
        ["Jensen", "Nielsen", "Pedersen", "Rasmussen", "Christensen", "Møller"],
    ),
    "fi": (
        ["Mikko", "Juha", "Antti", "Ville", "Lauri"],
        ["Aino", "Laura", "Hanna", "Emmi", "Satu"],
        ["Korhonen", "Virtanen", "Mäkinen", "Nieminen", "Heikkinen", "Laine"],
    ),
    "ee": (
        ["Rasmus", "Martin", "Kristjan", "Andres"],
        ["Liis", "Kadri", "Triin", "Maarja"],
        ["Tamm", "Saar", "Sepp", "Mägi", "Kask", "Rebane"],
    ),
    "cz": (
        ["Jan", "Petr", "Tomáš", "Jakub", "Lukáš"],
        ["Tereza", "Eliška", "Lucie", "Kateřina"],
        ["Novák", "Svoboda", "Dvořák", "Černý", "Procházka", "Kučera"],
    ),
    "ro": (
        ["Andrei", "Mihai", "Alexandru", "Ionuț", "Vlad"],
        ["Ioana", "Elena", "Andreea", "Cristina", "Raluca"],
        ["Popescu", "Ionescu", "Dumitru", "Stan", "Constantin", "Gheorghe"],
    ),
    "tr": (
        ["Mehmet", "Emre", "Burak", "Can", "Mustafa"],
        ["Ayşe", "Elif", "Zeynep", "Merve", "Selin"],
        ["Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Aydın", "Öztürk"],
    ),
    "pt": (
        ["João", "Tiago", "Rui", "Miguel", "Duarte"],
        ["Inês", "Beatriz", "Mariana", "Sofia", "Rita"],
        ["Silva", "Santos", "Ferreira", "Pereira", "Costa", "Rodrigues", "Carvalho"],
    ),
    "in": (
        ["Rahul", "Arjun", "Vikram", "Rohan", "Sandeep"],
        ["Priya", "Ananya", "Sneha", "Kavya", "Divya"],
        ["Sharma", "Iyer", "Reddy", "Gupta", "Nair", "Mehta", "Banerjee", "Kulkarni"],
    ),
    "cn": (
        ["伟", "强", "磊", "俊杰", "浩然"],
        ["娜", "静", "丽", "欣怡", "雨桐"],
        ["王", "李", "张", "刘", "陈", "杨", "赵", "黄"],
    ),
    "jp": (
        ["健太", "翔", "大輔", "拓也", "直樹"],
        ["美咲", "陽子", "さくら", "由美", "彩花"],
        ["佐藤", "鈴木", "高橋", "田中", "渡辺", "伊藤", "山本", "中村"],
    ),
    "kr": (
        ["민준", "서준", "도윤", "현우", "지훈"],
        ["서연", "지우", "하은", "수빈", "민지"],
        ["김", "이", "박", "최", "정", "강", "조", "윤"],
    ),
    "br": (
        ["Lucas", "Gabriel", "Rafael", "Thiago", "Bruno"],
        ["Ana", "Juliana", "Larissa", "Camila", "Fernanda"],
        ["Souza", "Oliveira", "Lima", "Almeida", "Ribeiro", "Barbosa", "Rocha"],
    ),
    "mx": (
        ["José", "Luis", "Carlos", "Jorge", "Emiliano"],
        ["María", "Guadalupe", "Daniela", "Ximena", "Valeria"],
        ["Hernández", "González", "Ramírez", "Torres", "Flores", "Vázquez", "Castillo", "Morales"],
    ),
    "ar": (
        ["Santiago", "Matías", "Facundo", "Nicolás"],
        ["Sofía", "Valentina", "Camila", "Florencia"],
        ["González", "Rodríguez", "Gómez", "Fernández", "Díaz", "Pérez", "Sosa"],
    ),
    "cl": (
        ["Benjamín", "Vicente", "Cristóbal", "Joaquín"],
        ["Javiera", "Catalina", "Constanza", "Antonia"],
        ["Muñoz", "Rojas", "Díaz", "Soto", "Contreras", "Silva", "Fuentes"],
    ),
    "ca": (
        ["Liam", "Noah", "Ethan", "Mathis"],
        ["Olivia", "Charlotte", "Maëlle", "Chloe"],
        ["Tremblay", "Gagnon", "Roy", "MacDonald", "Wilson", "Côté", "Chen"],
    ),
    "au": (
        ["Jack", "Riley", "Lachlan", "Cooper"],
        ["Matilda", "Ruby", "Zoe", "Mia"],
        ["Smith", "Jones", "Kelly", "O'Brien", "Nguyen", "Campbell", "Murphy"],
    ),
    "nz": (
        ["Nikau", "Tama", "Hamish", "Finn"],
        ["Aroha", "Mereana", "Georgia", "Tui"],
        ["Ngata", "Walker", "Te Rangi", "Thomson", "Parata", "Wilson"],
    ),
    "za": (
        ["Sipho", "Thabo", "Pieter", "Kagiso"],
        ["Thandiwe", "Lerato", "Anneke", "Naledi"],
        ["Dlamini", "Nkosi", "van der Merwe", "Botha", "Mokoena", "Naidoo"],
    ),
    "il": (
        ["Noam", "Itai", "Yossi", "Omer"],
        ["Noa", "Tamar", "Shira", "Maya"],
        ["Cohen", "Levi", "Mizrahi", "Peretz", "Friedman", "Azoulay"],
    ),
    "sg": (
        ["Wei Jie", "Jun Hao", "Arjun", "Hafiz"],
        ["Hui Min", "Xin Yi", "Nurul", "Priya"],
        ["Tan", "Lim", "Ng", "Goh", "Wong", "Rahman"],
    ),
    "ru": (
        ["Алексей", "Дмитрий", "Сергей", "Иван", "Михаил"],
        ["Ольга", "Екатерина", "Анна", "Мария", "Наталья"],
        ["Иванов", "Смирнов", "Кузнецов", "Попов", "Соколов", "Лебедев"],
    ),
    "sa": (
        ["محمد", "أحمد", "خالد", "عمر"],
        ["فاطمة", "نورة", "سارة", "ليلى"],
        ["العتيبي", "الحربي", "القحطاني", "الشمري", "الغامدي"],
    ),
    "gr": (
        ["Giorgos", "Nikos", "Dimitris", "Kostas"],
        ["Maria", "Eleni", "Katerina", "Sofia"],
        ["Papadopoulos", "Georgiou", "Nikolaidis", "Vlachos", "Pappas"],
    ),
    "hu": (
        ["Bence", "Máté", "Dániel", "Gergő"],
        ["Réka", "Eszter", "Dóra", "Zsófia"],
        ["Nagy", "Kovács", "Tóth", "Szabó", "Horváth", "Varga"],
    ),
    "vn": (
        ["Minh", "Huy", "Tuấn", "Quang"],
        ["Lan", "Hương", "Thảo", "Ngọc"],
        ["Nguyễn", "Trần", "Lê", "Phạm", "Hoàng"],
    ),
}
_CJK = {"cn", "jp", "kr"}
_FEM_SURNAME = {
    "pl": {
        "Kowalski": "Kowalska",
        "Wiśniewski": "Wiśniewska",
        "Kamiński": "Kamińska",
        "Lewandowski": "Lewandowska",
        "Zieliński": "Zielińska",
    },
    "ru": {
        "Иванов": "Иванова",
        "Смирнов": "Смирнова",
        "Кузнецов": "Кузнецова",
        "Попов": "Попова",
        "Соколов": "Соколова",
        "Лебедев": "Лебедева",
    },
    "cz": {
        "Novák": "Nováková",
        "Svoboda": "Svobodová",
        "Dvořák": "Dvořáková",
        "Černý": "Černá",
        "Procházka": "Procházková",
        "Kučera": "Kučerová",
    },
}


def pick_person(ctx: dict, loc: str) -> None:
    if ctx.get("_loc") == loc and "_first" in ctx:
        return
    if "_sex" not in ctx:
        ctx["_sex"] = R.choice("MF")
    males, females, lasts = NAMES[loc]
    first = R.choice(males if ctx["_sex"] == "M" else females)
    last = R.choice(lasts)
    if ctx["_sex"] == "F":
        last = _FEM_SURNAME.get(loc, {}).get(last, last)
    ctx["_first"], ctx["_last"], ctx["_loc"] = first, last, loc


def dob(ctx: dict, y0: int = 1952, y1: int = 2004) -> datetime.date:
    if "_dob" not in ctx:
        ctx["_dob"] = rand_date(y0, y1)
    return ctx["_dob"]


def sex(ctx: dict) -> str:
    if "_sex" not in ctx:
        ctx["_sex"] = R.choice("MF")
    return ctx["_sex"]


GEN: dict = {}


def gen(*names):
    def deco(fn):
        for n in names:
            GEN[n] = fn
        return fn

    return deco


def _name(loc):
    def f(ctx, key):
        pick_person(ctx, loc)
        if loc in _CJK:
            return ctx["_last"] + ("" if loc != "jp" else " ") + ctx["_first"]
        return f"{ctx['_first']} {ctx['_last']}"

    return f


def _first(loc):
    def f(ctx, key):
        pick_person(ctx, loc)
        return ctx["_first"]

    return f


for _loc in NAMES:
    GEN[f"name_{_loc}"] = _name(_loc)
    GEN[f"first_{_loc}"] = _first(_loc)

# --------------------------------------------------------------------------------------------
# secret generators


def gh_style(prefix: str) -> str:
    body = rs(ALNUM, 30)
    crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
    enc = ""
    while crc:
        crc, r = divmod(crc, 62)
        enc = BASE62[r] + enc
    return prefix + body + enc.rjust(6, "0")


def jwt_hs256(payload: dict, header: dict | None = None) -> str:
    header = header or {"alg": "HS256", "typ": "JWT"}
    h = b64u(json.dumps(header, separators=(",", ":")).encode())
    p = b64u(json.dumps(payload, separators=(",", ":")).encode())
    sig = hmac.new(rbytes(32), f"{h}.{p}".encode(), hashlib.sha256).digest()
    return f"{h}.{p}.{b64u(sig)}"


def password(style: str | None = None) -> str:
    style = style or R.choice(["word", "word", "random", "phrase", "leet", "random"])
    words = [
        "Sunflower",
        "Kestrel",
        "Marmalade",
        "Harbour",
        "Zephyr",
        "Tangerine",
        "Ottoman",
        "Lighthouse",
        "Quokka",
        "Nebula",
        "Paprika",
        "Juniper",
        "Falcon",
        "Sapphire",
        "Tundra",
        "Walnut",
        "Mistral",
        "Pelican",
    ]
    if style == "word":
        return (
            R.choice(words)
            + R.choice(["!", "#", "$", "?", "*", "@", "&"])
            + str(R.randint(1970, 2026))
        )
    if style == "random":
        return rs(ALNUM + "!#$%&*+-=?@^_~", R.randint(14, 22))
    if style == "phrase":
        return "-".join(R.choice(BIP39) for _ in range(4)) + str(R.randint(1, 99))
    w = R.choice(words).lower()
    w = w.replace("a", "4").replace("e", "3").replace("o", "0").replace("i", "1")
    return w.capitalize() + rs(DIG, 2) + R.choice("!$%")


def rsa_pem_body(nbytes: int = 1190, head: str = "MIIEpAIBAAKCAQEA") -> str:
    body = b64(rbytes(nbytes))
    return wrap(head + body[len(head) :], 64)


def openssh_body() -> str:
    head = b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x003\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "
    return wrap(b64(head + rbytes(270)), 70)


@gen("pw", "password")
def g_pw(ctx, key):
    return password()


@gen("pw_word")
def g_pw_word(ctx, key):
    return password("word")


@gen("pw_rand")
def g_pw_rand(ctx, key):
    return password("random")


@gen("pw_phrase")
def g_pw_phrase(ctx, key):
    return password("phrase")


@gen("pw_leet")
def g_pw_leet(ctx, key):
    return password("leet")


@gen("pw_url")  # url-safe password for connection strings
def g_pw_url(ctx, key):
    return rs(ALNUM, R.randint(16, 24))


@gen("pin4")
def g_pin4(ctx, key):
    while True:
        p = rs(DIG, 4)
        if len(set(p)) > 2:
            return p


@gen("pin6")
def g_pin6(ctx, key):
    return rs(DIG, 6)


GEN.update(
    {
        "aws_akid": lambda c, k: "AKIA" + rs(B32.replace("1", ""), 16),
        "aws_asia": lambda c, k: "ASIA" + rs(B32, 16),
        "aws_secret": lambda c, k: rs(B64, 40),
        "aws_session": lambda c, k: "IQoJb3JpZ2luX2VjE" + rs(B64, 280) + "==",
        "aws_account": lambda c, k: rs(DIG, 12),
        "gcp_api": lambda c, k: "AIza" + rs(B64U, 35),
        "azure_key": lambda c, k: b64(rbytes(64)),
        "azure_sas_sig": lambda c, k: urllib.parse.quote(b64(rbytes(32)), safe=""),
        "azure_sb_key": lambda c, k: b64(rbytes(32)),
        "azure_client_secret": lambda c, k: rs(ALNUM, 3) + "8Q~" + rs(ALNUM + "_~.-", 34),
        "do_pat": lambda c, k: "dop_v1_" + rs(HEXL, 64),
        "do_spaces": lambda c, k: "DO00" + rs(UP + DIG, 16),
        "do_spaces_secret": lambda c, k: rs(B64, 43),
        "ali_akid": lambda c, k: "LTAI5t" + rs(ALNUM, 18),
        "ali_secret": lambda c, k: rs(ALNUM, 30),
        "cf_token": lambda c, k: rs(B64U, 40),
        "cf_global": lambda c, k: rs(HEXL, 37),
        "cf_origin_ca": lambda c, k: "v1.0-" + rs(HEXL, 24) + "-" + rs(HEXL, 146),
        "ghp": lambda c, k: gh_style("ghp_"),
        "gho": lambda c, k: gh_style("gho_"),
        "ghs": lambda c, k: gh_style("ghs_"),
        "ghu": lambda c, k: gh_style("ghu_"),
        "ghr": lambda c, k: gh_style("ghr_"),
        "gh_fine": lambda c, k: "github_pat_11" + rs(UP + DIG, 20) + "_" + rs(ALNUM, 59),
        "glpat": lambda c, k: "glpat-" + rs(B64U, 20),
        "glrt": lambda c, k: "glrt-" + rs(B64U, 20),
        "gldt": lambda c, k: "gldt-" + rs(B64U, 20),
        "bb_app": lambda c, k: "ATBB" + rs(ALNUM, 24) + rs(HEXU, 8),
        "bb_access": lambda c, k: "ATCTT3xFfGN0" + rs(B64U, 180) + "=" + rs(HEXU, 8),
        "slack_bot": lambda c, k: f"xoxb-{rs(DIG, 11)}-{rs(DIG, 13)}-{rs(ALNUM, 24)}",
        "slack_user": lambda c, k: f"xoxp-{rs(DIG, 11)}-{rs(DIG, 11)}-{rs(DIG, 13)}-{rs(HEXL, 32)}",
        "slack_app": lambda c, k: f"xapp-1-A{rs(UP + DIG, 10)}-{rs(DIG, 13)}-{rs(HEXL, 64)}",
        "slack_hook": lambda c, k: (
            f"https://hooks.slack.com/services/T{rs(UP + DIG, 8)}/B{rs(UP + DIG, 10)}/{rs(ALNUM, 24)}"
        ),
        "discord_hook": lambda c, k: (
            f"https://discord.com/api/webhooks/{R.randint(10**18, 13 * 10**17 + 10**18)}/{rs(B64U, 68)}"
        ),
        "telegram": lambda c, k: f"{R.randint(10**9, 8 * 10**9)}:AA{rs(B64U, 33)}",
        "stripe_sk": lambda c, k: "sk_live_51" + rs(ALNUM, 97),
        "stripe_rk": lambda c, k: "rk_live_51" + rs(ALNUM, 97),
        "stripe_whsec": lambda c, k: "whsec_" + rs(ALNUM, 32),
        "twilio_sid": lambda c, k: "AC" + rs(HEXL, 32),
        "twilio_token": lambda c, k: rs(HEXL, 32),
        "twilio_sk": lambda c, k: "SK" + rs(HEXL, 32),
        "twilio_sk_secret": lambda c, k: rs(ALNUM, 32),
        "sendgrid": lambda c, k: "SG." + rs(B64U, 22) + "." + rs(B64U, 43),
        "mailgun_old": lambda c, k: "key-" + rs(HEXL, 32),
        "mailgun": lambda c, k: f"{rs(HEXL, 32)}-{rs(HEXL, 8)}-{rs(HEXL, 8)}",
        "mailchimp": lambda c, k: rs(HEXL, 32) + "-us" + str(R.randint(2, 21)),
        "openai": lambda c, k: "sk-proj-" + rs(B64U, 74) + "T3BlbkFJ" + rs(B64U, 74),
        "openai_svc": lambda c, k: "sk-svcacct-" + rs(B64U, 74) + "T3BlbkFJ" + rs(B64U, 74),
        "openai_legacy": lambda c, k: "sk-" + rs(ALNUM, 20) + "T3BlbkFJ" + rs(ALNUM, 20),
        "anthropic": lambda c, k: "sk-ant-api03-" + rs(B64U, 93) + "AA",
        "anthropic_admin": lambda c, k: "sk-ant-admin01-" + rs(B64U, 93) + "AA",
        "hf": lambda c, k: "hf_" + rs(UP + LO, 34),
        "replicate": lambda c, k: "r8_" + rs(ALNUM, 37),
        "cohere": lambda c, k: rs(ALNUM, 40),
        "groq": lambda c, k: "gsk_" + rs(ALNUM, 52),
        "mistral": lambda c, k: rs(ALNUM, 32),
        "npm": lambda c, k: gh_style("npm_"),
        "pypi": lambda c, k: "pypi-AgEIcHlwaS5vcmcCJD" + rs(B64U, 150),
        "docker": lambda c, k: "dckr_pat_" + rs(B64U, 27),
        "shpat": lambda c, k: "shpat_" + rs(HEXL, 32),
        "shpss": lambda c, k: "shpss_" + rs(HEXL, 32),
        "atlassian": lambda c, k: "ATATT3xFfGF0" + rs(B64U, 170) + "=" + rs(HEXU, 8),
        "notion": lambda c, k: "secret_" + rs(ALNUM, 43),
        "notion_ntn": lambda c, k: "ntn_" + rs(DIG, 11) + rs(ALNUM, 35),
        "linear": lambda c, k: "lin_api_" + rs(ALNUM, 40),
        "figma": lambda c, k: "figd_" + rs(B64U, 40),
        "vercel": lambda c, k: rs(ALNUM, 24),
        "netlify": lambda c, k: "nfp_" + rs(ALNUM, 36),
        "heroku": lambda c, k: "HRKU-AA" + rs(B64U, 58),
        "dd_api": lambda c, k: rs(HEXL, 32),
        "dd_app": lambda c, k: rs(HEXL, 40),
        "nr_user": lambda c, k: "NRAK-" + rs(UP + DIG, 27),
        "nr_license": lambda c, k: rs(HEXL, 36) + "NRAL",
        "sentry_dsn": lambda c, k: (
            f"https://{rs(HEXL, 32)}@o{R.randint(100000, 4999999)}.ingest.{R.choice(['', 'us.', 'de.'])}sentry.io/{R.randint(1000000, 4999999)}"
        ),
        "sentry_user": lambda c, k: "sntryu_" + rs(HEXL, 64),
        "doppler": lambda c, k: f"dp.st.{R.choice(['prd', 'prod', 'stg', 'dev'])}.{rs(ALNUM, 40)}",
        "doppler_pt": lambda c, k: "dp.pt." + rs(ALNUM, 43),
        "vault": lambda c, k: "hvs." + rs(B64U, 24),
        "vault_long": lambda c, k: "hvs.CAESI" + rs(B64U, 60) + "Gh4KHGh2cy4" + rs(ALNUM, 24),
        "tfc": lambda c, k: rs(ALNUM, 14) + ".atlasv1." + rs(ALNUM, 67),
        "okta": lambda c, k: "00" + rs(B64U, 40),
        "auth0_secret": lambda c, k: rs(B64U, 64),
        "auth0_id": lambda c, k: rs(ALNUM, 32),
        "fcm": lambda c, k: "AAAA" + rs(B64U, 7) + ":APA91b" + rs(B64U, 134),
        "square": lambda c, k: "EAAA" + rs(B64U, 60),
        "square_oauth": lambda c, k: "sq0csp-" + rs(B64U, 43),
        "braintree": lambda c, k: f"access_token$production${rs(LO + DIG, 16)}${rs(HEXL, 32)}",
        "paypal_id": lambda c, k: "A" + rs(B64U, 79),
        "paypal_secret": lambda c, k: "E" + rs(B64U, 79),
        "plaid_id": lambda c, k: rs(HEXL, 24),
        "plaid_secret": lambda c, k: rs(HEXL, 30),
        "plaid_access": lambda c, k: (
            f"access-production-{rs(HEXL, 8)}-{rs(HEXL, 4)}-{rs(HEXL, 4)}-{rs(HEXL, 4)}-{rs(HEXL, 12)}"
        ),
        "algolia_app": lambda c, k: rs(UP + DIG, 10),
        "algolia_admin": lambda c, k: rs(HEXL, 32),
        "supabase_secret": lambda c, k: "sb_secret_" + rs(B64U, 31),
        "wireguard": lambda c, k: b64(
            bytes([rbytes(1)[0] & 248]) + rbytes(30) + bytes([(rbytes(1)[0] & 127) | 64])
        ),
        "wireguard_pub": lambda c, k: b64(rbytes(32)),
        "seed12": lambda c, k: bip39_phrase(12),
        "seed24": lambda c, k: bip39_phrase(24),
        "totp": lambda c, k: base64.b32encode(rbytes(20)).decode().rstrip("="),
        "totp16": lambda c, k: base64.b32encode(rbytes(10)).decode().rstrip("="),
        "django_secret": lambda c, k: rs(LO + DIG + "!@#$%^&*(-_=+)", 50),
        "hex64": lambda c, k: rs(HEXL, 64),
        "hex32": lambda c, k: rs(HEXL, 32),
        "b64_32": lambda c, k: b64(rbytes(32)),
        "api_key_generic": lambda c, k: rs(ALNUM, 32),
        "session_id": lambda c, k: rs(B64U, 43),
        "jenkins": lambda c, k: "11" + rs(HEXL, 32),
        "postman": lambda c, k: f"PMAK-{rs(HEXL, 24)}-{rs(HEXL, 34)}",
        "snyk": lambda c, k: (
            f"{rs(HEXL, 8)}-{rs(HEXL, 4)}-{rs(HEXL, 4)}-{rs(HEXL, 4)}-{rs(HEXL, 12)}"
        ),
        "pulumi": lambda c, k: "pul-" + rs(HEXL, 40),
        "grafana_sa": lambda c, k: "glsa_" + rs(ALNUM, 32) + "_" + rs(HEXL, 8),
        "flyio": lambda c, k: "fo1_" + rs(B64U, 43),
        "rubygems": lambda c, k: "rubygems_" + rs(HEXL, 48),
        "age": lambda c, k: "AGE-SECRET-KEY-1" + rs("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58),
        "lark_ak": lambda c, k: "AKLT" + rs(B64U, 40),
        "gh_recovery": lambda c, k: "\n".join(f"{rs(HEXL, 5)}-{rs(HEXL, 5)}" for _ in range(8)),
        "google_backup": lambda c, k: "\n".join(f"{rs(DIG, 4)} {rs(DIG, 4)}" for _ in range(6)),
        "recovery_line": lambda c, k: " ".join(
            f"{rs(LO + DIG, 4)}-{rs(LO + DIG, 4)}" for _ in range(5)
        ),
        "bw_recovery": lambda c, k: rs(UP + DIG, 32),
        "apple_recovery": lambda c, k: "-".join(rs(UP + DIG, 4) for _ in range(7)),
        "ledger_ref": lambda c, k: rs(DIG, 6),
        "ulid_secret": lambda c, k: rs("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26),
    }
)


@gen("discord_bot")
def g_discord_bot(ctx, key):
    uid = str(R.randint(3 * 10**17, 13 * 10**17))
    return b64u(uid.encode()) + "." + rs(B64U, 6) + "." + rs(B64U, 38)


@gen("gcp_sa_json")
def g_gcp_sa(ctx, key):
    proj = (
        R.choice(["acme-analytics", "ledger-prod", "mnemo-ingest", "orbit-ml", "pinecone-etl"])
        + "-"
        + rs(DIG, 6)
    )
    sa = R.choice(["etl-runner", "terraform", "bq-loader", "ci-deployer"])
    pem = (
        "-----BEGIN PRIVATE KEY-----\n"
        + rsa_pem_body(1216, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ")
        + "\n-----END PRIVATE KEY-----\n"
    )
    d = {
        "type": "service_account",
        "project_id": proj,
        "private_key_id": rs(HEXL, 40),
        "private_key": pem,
        "client_email": f"{sa}@{proj}.iam.gserviceaccount.com",
        "client_id": rs(DIG, 21),
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    return json.dumps(d, indent=2)


@gen("supabase_jwt")
def g_supabase(ctx, key):
    iat = R.randint(1_650_000_000, 1_730_000_000)
    return jwt_hs256(
        {
            "iss": "supabase",
            "ref": rs(LO, 20),
            "role": "service_role",
            "iat": iat,
            "exp": iat + 315_360_000,
        }
    )


@gen("jwt")
def g_jwt(ctx, key):
    iat = R.randint(1_700_000_000, 1_760_000_000)
    payload = R.choice(
        [
            {"sub": rs(DIG, 8), "sid": rs(B64U, 22), "iat": iat, "exp": iat + 3600},
            {"sub": "user_" + rs(ALNUM, 12), "scope": "read write", "iat": iat, "exp": iat + 86400},
            {
                "uid": R.randint(1000, 999999),
                "role": "admin",
                "iat": iat,
                "exp": iat + 7200,
                "jti": rs(HEXL, 16),
            },
            {
                "iss": "https://auth.internal",
                "aud": "api",
                "sub": rs(HEXL, 24),
                "iat": iat,
                "exp": iat + 900,
            },
        ]
    )
    return jwt_hs256(payload)


@gen("jwt_rs")
def g_jwt_rs(ctx, key):
    iat = R.randint(1_700_000_000, 1_760_000_000)
    h = b64u(
        json.dumps(
            {"alg": "RS256", "kid": rs(HEXL, 16), "typ": "JWT"}, separators=(",", ":")
        ).encode()
    )
    p = b64u(
        json.dumps(
            {
                "iss": "https://login.example-idp.net/",
                "sub": rs(HEXL, 24),
                "aud": "billing-api",
                "iat": iat,
                "exp": iat + 3600,
                "scope": "openid offline_access",
            },
            separators=(",", ":"),
        ).encode()
    )
    return f"{h}.{p}.{b64u(rbytes(256))}"


@gen("mapbox_sk")
def g_mapbox(ctx, key):
    user = R.choice(["roadrunner", "geo-team", "kmiller", "atlasco"])
    return (
        "sk."
        + b64u(json.dumps({"u": user, "a": rs(LO + DIG, 25)}, separators=(",", ":")).encode())
        + "."
        + rs(B64U, 22)
    )


@gen("rsa_pem")
def g_rsa_pem(ctx, key):
    return "-----BEGIN RSA PRIVATE KEY-----\n" + rsa_pem_body() + "\n-----END RSA PRIVATE KEY-----"


@gen("pkcs8_pem")
def g_pkcs8(ctx, key):
    return (
        "-----BEGIN PRIVATE KEY-----\n"
        + rsa_pem_body(1216, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC")
        + "\n-----END PRIVATE KEY-----"
    )


@gen("ec_pem")
def g_ec_pem(ctx, key):
    body = b64(
        b"\x30\x77\x02\x01\x01\x04\x20"
        + rbytes(32)
        + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04"
        + rbytes(64)
    )
    return "-----BEGIN EC PRIVATE KEY-----\n" + wrap(body) + "\n-----END EC PRIVATE KEY-----"


@gen("openssh_pem")
def g_openssh(ctx, key):
    return (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + openssh_body()
        + "\n-----END OPENSSH PRIVATE KEY-----"
    )


@gen("pgp_priv")
def g_pgp(ctx, key):
    body = wrap("lQOYBG" + b64(rbytes(700))[6:], 64)
    crc = b64(rbytes(3))
    return (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        + body
        + "\n="
        + crc
        + "\n-----END PGP PRIVATE KEY BLOCK-----"
    )


@gen("host")
def g_host(ctx, key):
    return R.choice(
        [
            "db-prod-01.internal",
            "pg.eu-west-1.rds.amazonaws.com",
            "10.20.3.14",
            "orders-db.prod.svc.cluster.local",
            "sql.acme.lan",
        ]
    )


# --------------------------------------------------------------------------------------------
# personal generators


def d(n: int) -> str:
    return rs(DIG, n)


def nz(n: int) -> str:
    return R.choice("123456789") + rs(DIG, n - 1)


@gen("email")
def g_email(ctx, key):
    if "_first" not in ctx:
        pick_person(ctx, R.choice(["us", "uk", "de", "fr", "es", "it", "nl", "pl", "se", "br"]))
    first = ascii_fold(ctx["_first"]).lower().replace(" ", "").replace("'", "")
    last = ascii_fold(ctx["_last"]).lower().replace(" ", "").replace("'", "")
    if not first.isascii() or not first or not first.isalpha():
        first = R.choice(["wei", "yuki", "minji", "olga", "omar"])
    if not last or not last.isalpha():
        last = R.choice(["zhang", "tanaka", "kim", "petrova", "haddad"])
    loc = ctx.get("_loc", "us")
    domains = {
        "de": ["gmx.de", "web.de", "t-online.de", "posteo.de"],
        "fr": ["orange.fr", "free.fr", "laposte.net", "gmail.com"],
        "uk": ["btinternet.com", "outlook.com", "yahoo.co.uk"],
        "pl": ["wp.pl", "o2.pl", "interia.pl"],
        "it": ["libero.it", "alice.it", "gmail.com"],
        "es": ["telefonica.net", "gmail.com", "hotmail.es"],
        "nl": ["ziggo.nl", "kpnmail.nl", "gmail.com"],
        "se": ["telia.com", "bredband.net", "gmail.com"],
        "br": ["uol.com.br", "bol.com.br", "gmail.com"],
        "jp": ["docomo.ne.jp", "yahoo.co.jp"],
        "ru": ["yandex.ru", "mail.ru"],
        "in": ["rediffmail.com", "gmail.com"],
        "cn": ["qq.com", "163.com"],
        "kr": ["naver.com", "daum.net"],
    }.get(loc, ["gmail.com", "outlook.com", "proton.me", "icloud.com", "yahoo.com", "fastmail.com"])
    dom = R.choice(domains)
    shape = R.randrange(8)
    if shape == 0:
        local = f"{first}.{last}"
    elif shape == 1:
        local = f"{first[0]}{last}{R.randint(1, 99)}"
    elif shape == 2:
        local = f"{first}_{last}{R.randint(1960, 2005)}"
    elif shape == 3:
        local = f"{first}+{R.choice(['news', 'shop', 'bank', 'travel'])}"
    elif shape == 4:
        local = f"{last}.{first[0]}"
    elif shape == 5:
        local = f"{first}{last[:3]}{rs(DIG, 2)}"
    elif shape == 6:
        local = f"{first[0]}.{last}"
        dom = R.choice(
            [
                "acme-logistics.com",
                "brightline.io",
                "stadtwerke-ulm.de",
                "clinique-saint-roch.fr",
                "hallmark-legal.co.uk",
            ]
        )
    else:
        local = f"{last}{first[0]}"
    return f"{local}@{dom}"


PHONES = {
    # country: (national formatter, international formatter)
    "us": (
        lambda: f"({R.randint(201, 989)}) {R.randint(201, 989)}-{d(4)}",
        lambda: f"+1 {R.randint(201, 989)} {R.randint(201, 989)} {d(4)}",
    ),
    "ca": (
        lambda: f"{R.choice(['604', '416', '514', '403', '613'])}-{R.randint(201, 989)}-{d(4)}",
        lambda: f"+1-{R.choice(['778', '647', '438', '587'])}-{R.randint(201, 989)}-{d(4)}",
    ),
    "uk": (
        lambda: f"07{R.randint(400, 999)} {d(6)}",
        lambda: f"+44 7{R.randint(400, 999)} {d(3)} {d(3)}",
    ),
    "uk_land": (lambda: f"020 7{d(3)} {d(4)}", lambda: f"+44 (0)161 {d(3)} {d(4)}"),
    "de": (
        lambda: f"0{R.choice(['151', '160', '170', '176', '157'])} {d(8)}",
        lambda: f"+49 {R.choice(['151', '171', '176'])} {d(4)} {d(4)}",
    ),
    "de_land": (lambda: f"030 / {d(3)} {d(2)} {d(2)}", lambda: f"+49 89 {d(8)}"),
    "fr": (
        lambda: "0" + R.choice("67") + " " + " ".join(d(2) for _ in range(4)),
        lambda: "+33 " + R.choice("67") + " " + " ".join(d(2) for _ in range(4)),
    ),
    "es": (lambda: f"6{d(2)} {d(3)} {d(3)}", lambda: f"+34 6{d(2)} {d(2)} {d(2)} {d(2)}"),
    "it": (
        lambda: f"3{R.choice(['47', '33', '39', '28'])} {d(3)} {d(4)}",
        lambda: f"+39 3{R.choice(['47', '35', '40'])} {d(7)}",
    ),
    "nl": (lambda: f"06-{d(8)}", lambda: f"+31 6 {d(4)} {d(4)}"),
    "be": (
        lambda: f"04{R.choice(['70', '75', '85', '96'])} {d(2)} {d(2)} {d(2)}",
        lambda: f"+32 4{R.choice(['70', '77', '95'])} {d(2)} {d(2)} {d(2)}",
    ),
    "ch": (
        lambda: f"07{R.choice('6789')} {d(3)} {d(2)} {d(2)}",
        lambda: f"+41 7{R.choice('6789')} {d(3)} {d(2)} {d(2)}",
    ),
    "at": (lambda: f"0664 {d(7)}", lambda: f"+43 6{R.choice(['64', '76', '99'])} {d(3)} {d(4)}"),
    "pl": (
        lambda: f"{R.choice('5678')}{d(2)} {d(3)} {d(3)}",
        lambda: f"+48 {R.choice('5678')}{d(2)}-{d(3)}-{d(3)}",
    ),
    "se": (
        lambda: f"07{R.choice('0236')}-{d(3)} {d(2)} {d(2)}",
        lambda: f"+46 7{R.choice('0236')} {d(3)} {d(2)} {d(2)}",
    ),
    "no": (
        lambda: f"{R.choice('49')}{d(2)} {d(2)} {d(3)}",
        lambda: f"+47 {R.choice('49')}{d(2)} {d(2)} {d(3)}",
    ),
    "dk": (
        lambda: f"{R.choice(['20', '22', '26', '31', '42', '51'])} {d(2)} {d(2)} {d(2)}",
        lambda: f"+45 {R.choice(['28', '40', '60'])}{d(2)} {d(2)} {d(2)}",
    ),
    "fi": (
        lambda: f"04{R.choice('0456')} {d(3)} {d(4)}",
        lambda: f"+358 4{R.choice('0456')} {d(3)} {d(4)}",
    ),
    "ie": (
        lambda: f"08{R.choice('35679')} {d(3)} {d(4)}",
        lambda: f"+353 8{R.choice('5679')} {d(3)} {d(4)}",
    ),
    "pt": (
        lambda: f"9{R.choice('1236')}{d(1)} {d(3)} {d(3)}",
        lambda: f"+351 9{R.choice('1236')}{d(1)} {d(3)} {d(3)}",
    ),
    "gr": (lambda: f"69{d(1)} {d(3)} {d(4)}", lambda: f"+30 69{d(1)} {d(3)} {d(4)}"),
    "ru": (lambda: f"8 (9{d(2)}) {d(3)}-{d(2)}-{d(2)}", lambda: f"+7 9{d(2)} {d(3)}-{d(2)}-{d(2)}"),
    "tr": (
        lambda: f"05{R.choice('345')}{d(1)} {d(3)} {d(2)} {d(2)}",
        lambda: f"+90 5{R.choice('345')}{d(1)} {d(3)} {d(2)} {d(2)}",
    ),
    "in": (
        lambda: f"0{R.choice('6789')}{d(4)} {d(5)}",
        lambda: f"+91 {R.choice('6789')}{d(4)} {d(5)}",
    ),
    "cn": (
        lambda: f"1{R.choice('3589')}{d(1)} {d(4)} {d(4)}",
        lambda: f"+86 1{R.choice('3589')}{d(1)}-{d(4)}-{d(4)}",
    ),
    "jp": (
        lambda: f"0{R.choice('789')}0-{d(4)}-{d(4)}",
        lambda: f"+81 {R.choice('789')}0-{d(4)}-{d(4)}",
    ),
    "kr": (lambda: f"010-{d(4)}-{d(4)}", lambda: f"+82 10-{d(4)}-{d(4)}"),
    "br": (
        lambda: f"({R.choice(['11', '21', '31', '41', '51', '61', '71', '81'])}) 9{d(4)}-{d(4)}",
        lambda: f"+55 {R.choice(['11', '21', '48'])} 9{d(4)}-{d(4)}",
    ),
    "mx": (
        lambda: f"{R.choice(['55', '33', '81'])} {d(4)} {d(4)}",
        lambda: f"+52 {R.choice(['55', '33', '81'])} {d(4)} {d(4)}",
    ),
    "ar": (lambda: f"011 15-{d(4)}-{d(4)}", lambda: f"+54 9 11 {d(4)}-{d(4)}"),
    "cl": (lambda: f"9 {d(4)} {d(4)}", lambda: f"+56 9 {d(4)} {d(4)}"),
    "co": (
        lambda: f"3{R.choice(['00', '10', '15', '20'])} {d(3)} {d(4)}",
        lambda: f"+57 3{R.choice(['01', '12', '18'])} {d(3)} {d(4)}",
    ),
    "au": (lambda: f"04{d(2)} {d(3)} {d(3)}", lambda: f"+61 4{d(2)} {d(3)} {d(3)}"),
    "nz": (
        lambda: f"02{R.choice('1279')} {d(3)} {d(4)}",
        lambda: f"+64 2{R.choice('127')} {d(3)} {d(4)}",
    ),
    "za": (
        lambda: f"0{R.choice(['72', '82', '83', '84', '61'])} {d(3)} {d(4)}",
        lambda: f"+27 {R.choice(['72', '82', '83'])} {d(3)} {d(4)}",
    ),
    "ng": (
        lambda: f"080{R.choice('3567')} {d(3)} {d(4)}",
        lambda: f"+234 80{R.choice('3567')} {d(3)} {d(4)}",
    ),
    "eg": (
        lambda: f"01{R.choice('0125')} {d(4)} {d(4)}",
        lambda: f"+20 1{R.choice('0125')} {d(4)} {d(4)}",
    ),
    "il": (
        lambda: f"05{R.choice('02348')}-{d(3)}-{d(4)}",
        lambda: f"+972 5{R.choice('0248')}-{d(3)}-{d(4)}",
    ),
    "ae": (
        lambda: f"05{R.choice('0256')} {d(3)} {d(4)}",
        lambda: f"+971 5{R.choice('0256')} {d(3)} {d(4)}",
    ),
    "sa": (lambda: f"05{d(1)} {d(3)} {d(4)}", lambda: f"+966 5{d(1)} {d(3)} {d(4)}"),
    "sg": (lambda: f"{R.choice('89')}{d(3)} {d(4)}", lambda: f"+65 {R.choice('89')}{d(3)} {d(4)}"),
    "hk": (
        lambda: f"{R.choice('569')}{d(3)} {d(4)}",
        lambda: f"+852 {R.choice('569')}{d(3)} {d(4)}",
    ),
    "id": (
        lambda: f"08{R.choice('1257')}{d(1)}-{d(4)}-{d(4)}",
        lambda: f"+62 8{R.choice('1257')}{d(1)}-{d(4)}-{d(4)}",
    ),
    "vn": (lambda: f"09{d(2)} {d(3)} {d(3)}", lambda: f"+84 9{d(2)} {d(3)} {d(3)}"),
    "ph": (lambda: f"09{d(2)} {d(3)} {d(4)}", lambda: f"+63 9{d(2)} {d(3)} {d(4)}"),
    "hu": (
        lambda: f"06 {R.choice(['20', '30', '70'])} {d(3)} {d(4)}",
        lambda: f"+36 {R.choice(['20', '30', '70'])} {d(3)} {d(4)}",
    ),
    "cz": (
        lambda: f"{R.choice('67')}{d(2)} {d(3)} {d(3)}",
        lambda: f"+420 {R.choice('67')}{d(2)} {d(3)} {d(3)}",
    ),
}
for _c, (_nat, _intl) in PHONES.items():
    GEN[f"phone_{_c}"] = (lambda f: lambda ctx, key: f())(_nat)
    GEN[f"phone_{_c}_i"] = (lambda f: lambda ctx, key: f())(_intl)


def card_number(kind: str) -> str:
    if kind == "visa":
        body = "4" + d(14)
    elif kind == "mc":
        body = (
            (str(R.randint(51, 55)) + d(13))
            if R.random() < 0.7
            else (str(R.randint(2221, 2720)) + d(11))
        )
    elif kind == "amex":
        body = R.choice(["34", "37"]) + d(12)
    elif kind == "discover":
        body = R.choice(["6011" + d(11), "65" + d(13), "644" + d(12)])
    elif kind == "jcb":
        body = str(R.randint(3528, 3589)) + d(11)
    elif kind == "unionpay":
        body = "62" + R.choice(["2202", "1700", "2848", "8480"]) + d(9)
    elif kind == "maestro":
        body = R.choice(["6759", "5018", "6304"]) + d(14)
    else:
        raise ValueError(kind)
    return body + luhn_check_digit(body)


def fmt_card(num: str, sep: str | None = None) -> str:
    sep = R.choice([" ", " ", "-", ""]) if sep is None else sep
    if len(num) == 15:
        parts = [num[:4], num[4:10], num[10:]]
    else:
        parts = [num[i : i + 4] for i in range(0, len(num), 4)]
    return sep.join(parts)


for _k in ["visa", "mc", "amex", "discover", "jcb", "unionpay", "maestro"]:
    GEN[f"card_{_k}"] = (lambda k: lambda ctx, key: fmt_card(card_number(k)))(_k)
    GEN[f"card_{_k}_plain"] = (lambda k: lambda ctx, key: card_number(k))(_k)

GEN["cvv"] = lambda c, k: d(3)
GEN["cvv4"] = lambda c, k: d(4)
GEN["exp"] = lambda c, k: f"{R.randint(1, 12):02d}/{R.randint(26, 31)}"


# ---- IBANs (correct ISO 13616 check digits; national check digits where simple) -------------
def _alnum_to_int(s: str) -> int:
    return int("".join(str(int(ch, 36)) for ch in s))


def iban_check(cc: str, bban: str) -> str:
    return f"{98 - _alnum_to_int(bban + cc + '00') % 97:02d}"


def iban_ok(iban: str) -> bool:
    s = iban.replace(" ", "")
    return _alnum_to_int(s[4:] + s[:4]) % 97 == 1


CF_ODD = dict(
    zip(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        [
            1,
            0,
            5,
            7,
            9,
            13,
            15,
            17,
            19,
            21,
            1,
            0,
            5,
            7,
            9,
            13,
            15,
            17,
            19,
            21,
            2,
            4,
            18,
            20,
            11,
            3,
            6,
            8,
            12,
            14,
            16,
            10,
            22,
            25,
            24,
            23,
        ],
    )
)


def cf_even(ch: str) -> int:
    return int(ch) if ch.isdigit() else ord(ch) - 65


def it_cin(s: str) -> str:
    total = sum(CF_ODD[ch] if i % 2 == 0 else cf_even(ch) for i, ch in enumerate(s))
    return chr(65 + total % 26)


def _es_dc(s: str) -> str:
    w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6]
    v = 11 - sum(int(a) * b for a, b in zip(s, w)) % 11
    return str({11: 0, 10: 1}.get(v, v))


def bban(cc: str) -> str:
    if cc == "DE":
        return d(8) + d(10)
    if cc == "FR":
        bank, branch, acct = nz(5), d(5), d(11)
        key = 97 - (89 * int(bank) + 15 * int(branch) + 3 * int(acct)) % 97
        return f"{bank}{branch}{acct}{key:02d}"
    if cc == "GB":
        return R.choice(["NWBK", "BARC", "HBUK", "LOYD", "MIDL", "MONZ"]) + d(6) + d(8)
    if cc == "ES":
        bank, branch, acct = R.choice(["2100", "0049", "0182", "2085", "0081"]), d(4), d(10)
        return bank + branch + _es_dc("00" + bank + branch) + _es_dc(acct) + acct
    if cc == "IT":
        abi, cab, acct = R.choice(["03069", "02008", "05034", "03062"]), d(5), d(12)
        return it_cin(abi + cab + acct) + abi + cab + acct
    if cc == "NL":
        return R.choice(["ABNA", "RABO", "INGB", "TRIO", "SNSB", "KNAB"]) + d(10)
    if cc == "BE":
        first = nz(3) + d(7)
        c = int(first) % 97 or 97
        return f"{first}{c:02d}"
    if cc == "PT":
        body = R.choice(["0033", "0035", "0007", "0036"]) + d(4) + d(11)
        return body + f"{98 - int(body) * 100 % 97:02d}"
    if cc == "CH":
        return d(5) + d(12)
    if cc == "AT":
        return nz(5) + d(11)
    if cc == "SE":
        return R.choice(["500", "800", "300", "600"]) + d(17)
    if cc == "NO":
        while True:
            body = nz(4) + d(6)
            v = 11 - sum(int(a) * b for a, b in zip(body, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2])) % 11
            if v != 10:
                return body + str(0 if v == 11 else v)
    if cc == "DK":
        return d(4) + d(10)
    if cc == "FI":
        body = R.choice(["1", "4", "5", "8"]) + d(12)
        return body + luhn_check_digit(body)
    if cc == "IE":
        return R.choice(["AIBK", "BOFI", "IPBS"]) + d(6) + d(8)
    if cc == "PL":
        return d(8) + d(16)
    if cc == "CZ":
        return R.choice(["0800", "0100", "0300", "2010"]) + d(6) + d(10)
    if cc == "RO":
        return R.choice(["RNCB", "BTRL", "INGB", "BRDE"]) + rs(UP + DIG, 16)
    if cc == "TR":
        return d(5) + "0" + d(16)
    if cc == "SA":
        return d(2) + d(18)
    if cc == "LU":
        return d(3) + d(13)
    if cc == "GR":
        return d(3) + d(4) + d(16)
    if cc == "HU":
        return d(24)
    if cc == "HR":
        return d(7) + d(10)
    if cc == "AE":
        return d(3) + d(16)
    if cc == "LT":
        return d(5) + d(11)
    raise ValueError(cc)


def iban(cc: str, spaced: bool | None = None) -> str:
    b = bban(cc)
    s = cc + iban_check(cc, b) + b
    assert iban_ok(s)
    spaced = R.random() < 0.6 if spaced is None else spaced
    return " ".join(s[i : i + 4] for i in range(0, len(s), 4)) if spaced else s


for _cc in [
    "DE",
    "FR",
    "GB",
    "ES",
    "IT",
    "NL",
    "BE",
    "PT",
    "CH",
    "AT",
    "SE",
    "NO",
    "DK",
    "FI",
    "IE",
    "PL",
    "CZ",
    "RO",
    "TR",
    "SA",
    "LU",
    "GR",
    "HU",
    "HR",
    "AE",
    "LT",
]:
    GEN[f"iban_{_cc.lower()}"] = (lambda cc: lambda ctx, key: iban(cc))(_cc)


@gen("aba")
def g_aba(ctx, key):
    while True:
        first8 = f"{R.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 21, 22, 26, 31, 32]):02d}" + d(
            6
        )
        w = [3, 7, 1, 3, 7, 1, 3, 7]
        s = sum(int(a) * b for a, b in zip(first8, w))
        c = (10 - s % 10) % 10
        return first8 + str(c)


GEN["us_acct"] = lambda c, k: nz(R.randint(8, 12))
GEN["uk_sort"] = lambda c, k: (
    f"{R.choice(['20', '40', '60', '30', '77', '09', '11'])}-{d(2)}-{d(2)}"
)
GEN["uk_acct"] = lambda c, k: nz(8)
GEN["ifsc"] = lambda c, k: R.choice(["SBIN", "HDFC", "ICIC", "UTIB", "PUNB", "KKBK"]) + "0" + d(6)
GEN["in_acct"] = lambda c, k: nz(R.randint(11, 16))
GEN["ca_transit"] = lambda c, k: f"{d(5)}-{R.choice(['001', '002', '003', '004', '006', '010'])}"
GEN["ca_acct"] = lambda c, k: d(7)
GEN["au_bsb"] = lambda c, k: f"{R.choice(['062', '063', '082', '083', '033', '012'])}-{d(3)}"
GEN["au_acct"] = lambda c, k: nz(R.randint(8, 9))
GEN["br_agencia"] = lambda c, k: d(4)
GEN["br_conta"] = lambda c, k: f"{nz(6)}-{d(1)}"
GEN["mx_clabe"] = lambda c, k: clabe()
GEN["swift"] = lambda c, k: R.choice(
    [
        "DEUTDEFF",
        "BNPAFRPP",
        "COBADEFFXXX",
        "BARCGB22",
        "CHASUS33",
        "INGBNL2A",
        "BCITITMM",
        "CAIXESBB",
        "UBSWCHZH80A",
        "NDEAFIHH",
        "HANDSESS",
        "DNBANOKK",
    ]
)


def clabe() -> str:
    body = R.choice(["002", "012", "014", "021", "072"]) + d(3) + d(11)
    w = [3, 7, 1] * 6
    s = sum((int(a) * b) % 10 for a, b in zip(body, w))
    return body + str((10 - s % 10) % 10)


# ---- government ids -------------------------------------------------------------------------
@gen("ssn")
def g_ssn(ctx, key):
    while True:
        area = R.randint(1, 899)
        if area != 666:
            return f"{area:03d}-{R.randint(1, 99):02d}-{R.randint(1, 9999):04d}"


@gen("nino")
def g_nino(ctx, key):
    while True:
        p = R.choice("ABCEGHJKLMNOPRSTWXYZ") + R.choice("ABCEGHJKLMNPRSTWXYZ")
        if p not in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}:
            break
    num = d(6)
    if R.random() < 0.5:
        return f"{p} {num[:2]} {num[2:4]} {num[4:]} {R.choice('ABCD')}"
    return f"{p}{num}{R.choice('ABCD')}"


@gen("nhs")
def g_nhs(ctx, key):
    while True:
        body = nz(9)
        c = 11 - sum(int(a) * (10 - i) for i, a in enumerate(body)) % 11
        if c == 11:
            c = 0
        if c != 10:
            n = body + str(c)
            return f"{n[:3]} {n[3:6]} {n[6:]}"


@gen("nir")
def g_nir(ctx, key):
    b = dob(ctx)
    s = "1" if sex(ctx) == "M" else "2"
    dept = R.choice(["75", "69", "13", "33", "59", "31", "44", "2A", "67"])
    num_dept = dept.replace("2A", "19")
    body = f"{s}{b.year % 100:02d}{b.month:02d}{dept}{d(3)}{d(3)}"
    key_ = 97 - int(f"{s}{b.year % 100:02d}{b.month:02d}{num_dept}{body[7:]}") % 97
    return f"{body[0]} {body[1:3]} {body[3:5]} {body[5:7]} {body[7:10]} {body[10:13]} {key_:02d}"


@gen("steuer_id")
def g_steuer(ctx, key):
    while True:
        digits = R.sample(range(10), 9)
        rep = R.choice(digits)
        ten = digits + [rep]
        R.shuffle(ten)
        if ten[0] == 0:
            continue
        prod = 10
        for x in ten:
            s = (x + prod) % 10 or 10
            prod = (s * 2) % 11
        c = 11 - prod
        if c == 10:
            c = 0
        n = "".join(map(str, ten)) + str(c)
        return f"{n[:2]} {n[2:5]} {n[5:8]} {n[8:]}" if R.random() < 0.5 else n


def icao_check(s: str) -> str:
    w = [7, 3, 1]
    total = 0
    for i, ch in enumerate(s):
        v = int(ch) if ch.isdigit() else (0 if ch == "<" else ord(ch) - 55)
        total += v * w[i % 3]
    return str(total % 10)


@gen("de_ausweis")
def g_de_ausweis(ctx, key):
    alpha = "CFGHJKLMNPRTVWXYZ"
    s = R.choice("LMNPRTVWXY") + rs(alpha + DIG, 8)
    return s + icao_check(s)


@gen("de_pass")
def g_de_pass(ctx, key):
    s = "C" + rs("CFGHJKLMNPRTVWXYZ0123456789", 8)
    return s


@gen("dni")
def g_dni(ctx, key):
    n = R.randint(10_000_000, 79_999_999)
    return f"{n:08d}{'TRWAGMYFPDXBNJZSQVHLCKE'[n % 23]}"


@gen("nie")
def g_nie(ctx, key):
    p = R.choice("XYZ")
    n = R.randint(0, 9_999_999)
    full = int(str("XYZ".index(p)) + f"{n:07d}")
    return f"{p}{n:07d}{'TRWAGMYFPDXBNJZSQVHLCKE'[full % 23]}"


@gen("pt_nif")
def g_pt_nif(ctx, key):
    body = R.choice("123") + d(7)
    r = sum(int(a) * b for a, b in zip(body, range(9, 1, -1))) % 11
    return body + str(0 if r < 2 else 11 - r)


def _cf_part(s: str, is_name: bool) -> str:
    s = ascii_fold(s).upper().replace(" ", "").replace("'", "")
    cons = [c for c in s if c.isalpha() and c not in "AEIOU"]
    vows = [c for c in s if c in "AEIOU"]
    if is_name and len(cons) >= 4:
        cons = [cons[0], cons[2], cons[3]]
    return ("".join(cons + vows) + "XXX")[:3]


@gen("codice_fiscale")
def g_cf(ctx, key):
    if "_first" not in ctx:
        pick_person(ctx, "it")
    b = dob(ctx)
    day = b.day + (40 if sex(ctx) == "F" else 0)
    s = (
        _cf_part(ctx["_last"], False)
        + _cf_part(ctx["_first"], True)
        + f"{b.year % 100:02d}"
        + "ABCDEHLMPRST"[b.month - 1]
        + f"{day:02d}"
        + R.choice(["H501", "F205", "F839", "L219", "G273", "A944", "D612", "L736"])
    )
    return s + it_cin(s)


@gen("bsn")
def g_bsn(ctx, key):
    while True:
        body = nz(8)
        c = sum(int(a) * b for a, b in zip(body, range(9, 1, -1))) % 11
        if c < 10:
            return body + str(c)


@gen("be_nn")
def g_be_nn(ctx, key):
    b = dob(ctx)
    seq = R.randint(1, 997)
    if (seq % 2 == 1) != (sex(ctx) == "M"):
        seq += 1
    base = f"{b.year % 100:02d}{b.month:02d}{b.day:02d}{seq:03d}"
    n = int(("2" if b.year >= 2000 else "") + base)
    c = 97 - n % 97
    return f"{base[:2]}.{base[2:4]}.{base[4:6]}-{base[6:9]}.{c:02d}"


@gen("pesel")
def g_pesel(ctx, key):
    b = dob(ctx)
    m = b.month + (20 if b.year >= 2000 else 0)
    s_digit = R.choice("13579" if sex(ctx) == "M" else "02468")
    body = f"{b.year % 100:02d}{m:02d}{b.day:02d}{d(3)}{s_digit}"
    w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3]
    return body + str((10 - sum(int(a) * x for a, x in zip(body, w)) % 10) % 10)


@gen("personnummer")
def g_pnr(ctx, key):
    b = dob(ctx)
    third = R.choice("13579" if sex(ctx) == "M" else "02468")
    body = f"{b.year % 100:02d}{b.month:02d}{b.day:02d}{d(2)}{third}"
    total = 0
    for i, ch in enumerate(body):
        v = int(ch) * (2 if i % 2 == 0 else 1)
        total += v - 9 if v > 9 else v
    c = (10 - total % 10) % 10
    if R.random() < 0.4:
        return f"{b.year}{b.month:02d}{b.day:02d}-{body[6:]}{c}"
    return f"{body[:6]}-{body[6:]}{c}"


@gen("fodselsnummer")
def g_fnr(ctx, key):
    b = dob(ctx)
    while True:
        ind = R.randint(0, 499) if b.year < 2000 else R.randint(500, 999)
        if (ind // 1 % 10 % 2 == 1) != (sex(ctx) == "M"):
            continue
        body = f"{b.day:02d}{b.month:02d}{b.year % 100:02d}{ind:03d}"
        k1 = 11 - sum(int(a) * x for a, x in zip(body, [3, 7, 6, 1, 8, 9, 4, 5, 2])) % 11
        k1 = 0 if k1 == 11 else k1
        if k1 == 10:
            continue
        body += str(k1)
        k2 = 11 - sum(int(a) * x for a, x in zip(body, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2])) % 11
        k2 = 0 if k2 == 11 else k2
        if k2 == 10:
            continue
        return body + str(k2)


@gen("cpr")
def g_cpr(ctx, key):
    b = dob(ctx, 1940, 1999)
    while True:
        seq = R.choice("0123") + d(2)
        body = f"{b.day:02d}{b.month:02d}{b.year % 100:02d}{seq}"
        s = sum(int(a) * x for a, x in zip(body, [4, 3, 2, 7, 6, 5, 4, 3, 2]))
        last = (-s) % 11
        if last < 10 and (last % 2 == 1) == (sex(ctx) == "M"):
            return f"{body[:6]}-{body[6:]}{last}"


@gen("hetu")
def g_hetu(ctx, key):
    b = dob(ctx)
    ind = R.randint(2, 899)
    if (ind % 2 == 1) != (sex(ctx) == "M"):
        ind += 1
    sign = "-" if b.year < 2000 else "A"
    n = int(f"{b.day:02d}{b.month:02d}{b.year % 100:02d}{ind:03d}")
    return f"{b.day:02d}{b.month:02d}{b.year % 100:02d}{sign}{ind:03d}{'0123456789ABCDEFHJKLMNPRSTUVWXY'[n % 31]}"


@gen("isikukood")
def g_isikukood(ctx, key):
    b = dob(ctx)
    g = (3 if b.year < 2000 else 5) + (0 if sex(ctx) == "M" else 1)
    body = f"{g}{b.year % 100:02d}{b.month:02d}{b.day:02d}{d(3)}"
    c = sum(int(a) * x for a, x in zip(body, [1, 2, 3, 4, 5, 6, 7, 8, 9, 1])) % 11
    if c == 10:
        c = sum(int(a) * x for a, x in zip(body, [3, 4, 5, 6, 7, 8, 9, 1, 2, 3])) % 11
        c = 0 if c == 10 else c
    return body + str(c)


@gen("rodne_cislo")
def g_rc(ctx, key):
    b = dob(ctx, 1955, 2004)
    m = b.month + (50 if sex(ctx) == "F" else 0)
    while True:
        body = f"{b.year % 100:02d}{m:02d}{b.day:02d}{d(3)}"
        c = int(body) % 11
        if c < 10:
            return f"{body[:6]}/{body[6:]}{c}"


@gen("cnp")
def g_cnp(ctx, key):
    b = dob(ctx)
    s = (1 if b.year < 2000 else 5) + (0 if sex(ctx) == "M" else 1)
    body = f"{s}{b.year % 100:02d}{b.month:02d}{b.day:02d}{R.randint(1, 46):02d}{R.randint(1, 999):03d}"
    c = sum(int(a) * int(x) for a, x in zip(body, "279146358279")) % 11
    return body + str(1 if c == 10 else c)


@gen("tckn")
def g_tckn(ctx, key):
    ds = [R.randint(1, 9)] + [R.randint(0, 9) for _ in range(8)]
    d10 = ((ds[0] + ds[2] + ds[4] + ds[6] + ds[8]) * 7 - (ds[1] + ds[3] + ds[5] + ds[7])) % 10
    ds.append(d10)
    ds.append(sum(ds) % 10)
    return "".join(map(str, ds))


_VD = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_VP = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]
_VINV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_digit(num: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(num)):
        c = _VD[c][_VP[(i + 1) % 8][int(ch)]]
    return str(_VINV[c])


def verhoeff_ok(num: str) -> bool:
    c = 0
    for i, ch in enumerate(reversed(num)):
        c = _VD[c][_VP[i % 8][int(ch)]]
    return c == 0


@gen("aadhaar")
def g_aadhaar(ctx, key):
    body = R.choice("23456789") + d(10)
    n = body + verhoeff_digit(body)
    assert verhoeff_ok(n)
    return f"{n[:4]} {n[4:8]} {n[8:]}"


@gen("pan")
def g_pan(ctx, key):
    last = ascii_fold(ctx.get("_last", "K"))[:1].upper() or "K"
    return rs(UP, 3) + "P" + last + d(4) + rs(UP, 1)


@gen("cn_ric")
def g_cn_ric(ctx, key):
    b = dob(ctx)
    seq = R.randint(1, 998)
    if (seq % 2 == 1) != (sex(ctx) == "M"):
        seq += 1
    body = (
        R.choice(["110101", "310104", "440305", "510107", "330106", "420106", "320102"])
        + f"{b.year}{b.month:02d}{b.day:02d}{seq:03d}"
    )
    w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return body + "10X98765432"[sum(int(a) * x for a, x in zip(body, w)) % 11]


@gen("my_number")
def g_my_number(ctx, key):
    body = d(11)
    s = 0
    for n, ch in enumerate(reversed(body), start=1):
        q = n + 1 if n <= 6 else n - 5
        s += int(ch) * q
    r = s % 11
    c = 0 if r <= 1 else 11 - r
    n = body + str(c)
    return f"{n[:4]} {n[4:8]} {n[8:]}"


@gen("kr_rrn")
def g_rrn(ctx, key):
    b = dob(ctx)
    g = (1 if b.year < 2000 else 3) + (0 if sex(ctx) == "M" else 1)
    body = f"{b.year % 100:02d}{b.month:02d}{b.day:02d}{g}{d(5)}"
    w = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5]
    c = (11 - sum(int(a) * x for a, x in zip(body, w)) % 11) % 10
    return f"{body[:6]}-{body[6:]}{c}"


def _mod11_br(body: str, weights: list[int]) -> str:
    r = sum(int(a) * x for a, x in zip(body, weights)) % 11
    return "0" if r < 2 else str(11 - r)


@gen("cpf")
def g_cpf(ctx, key):
    body = d(9)
    body += _mod11_br(body, list(range(10, 1, -1)))
    body += _mod11_br(body, list(range(11, 1, -1)))
    return f"{body[:3]}.{body[3:6]}.{body[6:9]}-{body[9:]}"


@gen("cnpj")
def g_cnpj(ctx, key):
    body = d(8) + "0001"
    body += _mod11_br(body, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
    body += _mod11_br(body, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
    return f"{body[:2]}.{body[2:5]}.{body[5:8]}/{body[8:12]}-{body[12:]}"


_CURP_DICT = "0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ"


def _mx_letters(ctx) -> str:
    if "_first" not in ctx:
        pick_person(ctx, "mx")
    last1 = ascii_fold(ctx["_last"]).upper()
    last2 = ascii_fold(R.choice(NAMES["mx"][2])).upper()
    first = ascii_fold(ctx["_first"]).upper()
    vowel = next((c for c in last1[1:] if c in "AEIOU"), "X")
    ctx["_last2"] = last2
    return last1[0] + vowel + last2[0] + first[0], last1, last2, first


@gen("curp")
def g_curp(ctx, key):
    b = dob(ctx)
    four, l1, l2, fn = _mx_letters(ctx)

    def inner_cons(w):
        return next((c for c in w[1:] if c.isalpha() and c not in "AEIOU"), "X")

    s = (
        four
        + f"{b.year % 100:02d}{b.month:02d}{b.day:02d}"
        + ("H" if sex(ctx) == "M" else "M")
        + R.choice(["DF", "JC", "NL", "MC", "PL", "VZ", "GT"])
        + inner_cons(l1)
        + inner_cons(l2)
        + inner_cons(fn)
        + (R.choice(DIG) if b.year < 2000 else R.choice(UP))
    )
    total = sum(_CURP_DICT.index(ch) * (18 - i) for i, ch in enumerate(s))
    return s + str((10 - total % 10) % 10)


@gen("rfc")
def g_rfc(ctx, key):
    b = dob(ctx)
    four = _mx_letters(ctx)[0] if "_rfc4" not in ctx else ctx["_rfc4"]
    s = (
        four
        + f"{b.year % 100:02d}{b.month:02d}{b.day:02d}"
        + rs(UP.replace("O", "") + "123456789", 2)
    )
    dic = "0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ"
    total = sum(dic.index(ch) * (13 - i) for i, ch in enumerate(s))
    r = total % 11
    c = "0" if r == 0 else ("A" if 11 - r == 10 else str(11 - r))
    return s + c


@gen("ar_dni")
def g_ar_dni(ctx, key):
    n = R.randint(20_000_000, 45_999_999)
    ctx["_ar_dni"] = f"{n:08d}"
    return f"{n:,}".replace(",", ".")


@gen("cuil")
def g_cuil(ctx, key):
    while True:
        dni = ctx.get("_ar_dni") or f"{R.randint(20_000_000, 45_999_999):08d}"
        pre = "20" if sex(ctx) == "M" else "27"
        body = pre + dni
        r = 11 - sum(int(a) * x for a, x in zip(body, [5, 4, 3, 2, 7, 6, 5, 4, 3, 2])) % 11
        if r == 10:
            ctx.pop("_ar_dni", None)
            continue
        return f"{pre}-{dni}-{0 if r == 11 else r}"


@gen("rut")
def g_rut(ctx, key):
    n = R.randint(6_000_000, 26_999_999)
    s, m = 0, 2
    for ch in reversed(str(n)):
        s += int(ch) * m
        m = 2 if m == 7 else m + 1
    v = 11 - s % 11
    dv = "0" if v == 11 else ("K" if v == 10 else str(v))
    return f"{n:,}".replace(",", ".") + "-" + dv


@gen("sin")
def g_sin(ctx, key):
    body = R.choice("1234567") + d(7)
    n = body + luhn_check_digit(body)
    return f"{n[:3]} {n[3:6]} {n[6:]}" if R.random() < 0.7 else f"{n[:3]}-{n[3:6]}-{n[6:]}"


@gen("tfn")
def g_tfn(ctx, key):
    w = [1, 4, 3, 7, 5, 8, 6, 9, 10]
    while True:
        body = nz(8)
        s = sum(int(a) * x for a, x in zip(body, w))
        c = s % 11
        if c < 10:
            n = body + str(c)
            assert sum(int(a) * x for a, x in zip(n, w)) % 11 == 0
            return f"{n[:3]} {n[3:6]} {n[6:]}"


@gen("medicare")
def g_medicare(ctx, key):
    body = R.choice("23456") + d(7)
    c = sum(int(a) * x for a, x in zip(body, [1, 3, 7, 9, 1, 3, 7, 9])) % 10
    n = body + str(c) + str(R.randint(1, 5))
    return f"{n[:4]} {n[4:9]} {n[9]}"


@gen("ird")
def g_ird(ctx, key):
    while True:
        base = R.randint(10_000_000, 149_999_999)
        b8 = f"{base:09d}"[:8]
        ok = None
        for w in ([3, 2, 7, 6, 5, 4, 3, 2], [7, 4, 3, 2, 5, 2, 7, 6]):
            r = sum(int(a) * x for a, x in zip(b8, w)) % 11
            c = 0 if r == 0 else 11 - r
            if c != 10:
                ok = c
                break
        if ok is not None:
            n = b8 + str(ok)
            return f"{n[:3]}-{n[3:6]}-{n[6:]}"


@gen("za_id")
def g_za_id(ctx, key):
    b = dob(ctx)
    seq = R.randint(5000, 9999) if sex(ctx) == "M" else R.randint(0, 4999)
    body = f"{b.year % 100:02d}{b.month:02d}{b.day:02d}{seq:04d}08"
    return body + luhn_check_digit(body)


@gen("il_id")
def g_il_id(ctx, key):
    body = d(8)
    s = 0
    for i, ch in enumerate(body):
        v = int(ch) * (1 if i % 2 == 0 else 2)
        s += v - 9 if v > 9 else v
    return body + str((10 - s % 10) % 10)


@gen("nric")
def g_nric(ctx, key):
    b = dob(ctx, 1960, 2008)
    p = "S" if b.year < 2000 else "T"
    body = f"{b.year % 100:02d}" + d(5) if R.random() < 0.5 else d(7)
    s = sum(int(a) * x for a, x in zip(body, [2, 7, 6, 5, 4, 3, 2])) + (4 if p == "T" else 0)
    return p + body + "JZIHGFEDCBA"[s % 11]


@gen("kvnr")
def g_kvnr(ctx, key):
    letter = R.choice(UP)
    body = d(8)
    digits = f"{ord(letter) - 64:02d}" + body
    s = 0
    for i, ch in enumerate(digits):
        v = int(ch) * (1 if i % 2 == 0 else 2)
        s += v // 10 + v % 10
    return letter + body + str(s % 10)


@gen("ahv")  # Swiss AHV/AVS number, EAN-13 check digit
def g_ahv(ctx, key):
    body = "756" + d(9)
    s = sum(int(a) * (1 if i % 2 == 0 else 3) for i, a in enumerate(body))
    n = body + str((10 - s % 10) % 10)
    return f"{n[:3]}.{n[3:7]}.{n[7:11]}.{n[11:]}"


@gen("gr_amka")
def g_amka(ctx, key):
    b = dob(ctx)
    body = f"{b.day:02d}{b.month:02d}{b.year % 100:02d}{d(4)}"
    return body + luhn_check_digit(body)


@gen("us_passport")
def g_us_pass(ctx, key):
    return R.choice("AB") + nz(8) if R.random() < 0.5 else nz(9)


GEN.update(
    {
        "uk_passport": lambda c, k: nz(9),
        "fr_passport": lambda c, k: f"{d(2)}{rs(UP, 2)}{d(5)}",
        "in_passport": lambda c, k: R.choice("JKLMNPRSTUVWZ") + nz(7),
        "ca_passport": lambda c, k: rs(UP, 2) + d(6),
        "au_passport": lambda c, k: R.choice("NPRE") + rs(UP, 1) + d(7),
        "jp_passport": lambda c, k: R.choice(["TK", "TR", "TZ", "MU"]) + d(7),
        "cn_passport": lambda c, k: "E" + d(8),
        "br_passport": lambda c, k: rs(UP, 2) + d(6),
        "es_passport": lambda c, k: rs(UP, 3) + d(6),
        "it_passport": lambda c, k: rs(UP, 2) + d(7),
        "mx_passport": lambda c, k: "G" + d(8),
        "kr_passport": lambda c, k: "M" + d(8),
        "nl_passport": lambda c, k: (
            rs("BCDFGHJKLMNPRSTVWXYZ", 2) + rs("BCDFGHJKLMNPRSTVWXYZ0123456789", 6) + d(1)
        ),
        "ca_dl": lambda c, k: R.choice(UP) + d(7),
        "ny_dl": lambda c, k: f"{d(3)} {d(3)} {d(3)}",
        "fl_dl": lambda c, k: f"{R.choice(UP)}{d(3)}-{d(3)}-{d(2)}-{d(3)}-{d(1)}",
        "tx_dl": lambda c, k: nz(8),
        "on_dl": lambda c, k: f"{R.choice(UP)}{d(4)}-{d(5)}-{d(5)}",
        "nsw_dl": lambda c, k: nz(8),
        "in_dl": lambda c, k: (
            f"{R.choice(['MH', 'KA', 'DL', 'TN', 'UP'])}{d(2)} {R.randint(2005, 2022)}{d(7)}"
        ),
        "de_fs": lambda c, k: rs(UP + DIG, 4) + rs(UP + DIG, 6) + d(1),
        "fr_permis": lambda c, k: d(12),
    }
)


@gen("uk_dl")
def g_uk_dl(ctx, key):
    if "_first" not in ctx:
        pick_person(ctx, "uk")
    b = dob(ctx)
    sur = (ascii_fold(ctx["_last"]).upper().replace(" ", "").replace("'", "") + "99999")[:5]
    month = b.month + (50 if sex(ctx) == "F" else 0)
    return f"{sur}{str(b.year)[2]}{month:02d}{b.day:02d}{str(b.year)[3]}{ascii_fold(ctx['_first'])[0].upper()}9{R.randint(0, 9)}{rs(UP, 2)}"


# dates of birth in local formats (use the same date as the ids of the text)
GEN.update(
    {
        "dob_iso": lambda c, k: dob(c).isoformat(),
        "dob_us": lambda c, k: f"{dob(c).month:02d}/{dob(c).day:02d}/{dob(c).year}",
        "dob_eu": lambda c, k: f"{dob(c).day:02d}/{dob(c).month:02d}/{dob(c).year}",
        "dob_dot": lambda c, k: f"{dob(c).day:02d}.{dob(c).month:02d}.{dob(c).year}",
        "dob_jp": lambda c, k: f"{dob(c).year}年{dob(c).month}月{dob(c).day}日",
        "dob_long": lambda c, k: dob(c).strftime("%d %B %Y").lstrip("0"),
    }
)

# ---- street addresses -----------------------------------------------------------------------


def _hn(a=1, b=220):
    return str(R.randint(a, b))


ADDR = {
    "us": lambda: (
        f"{_hn(100, 9899)} {R.choice(['Maple Ave', 'Sycamore Dr', 'W 43rd St', 'Greenwood Blvd', 'Lakeview Ct', 'Old Mill Rd'])}{R.choice(['', ', Apt ' + _hn(1, 40) + R.choice('ABCD')])}, {R.choice(['Portland, OR 97214', 'Austin, TX 78704', 'Columbus, OH 43215', 'Raleigh, NC 27605', 'Madison, WI 53703'])}"
    ),
    "us_nostreet": lambda: (
        f"{_hn(100, 9899)} {R.choice(['Cedar Hollow', 'Larkspur', 'Windmere', 'Briarcliff'])}, {R.choice(['Boulder, CO 80302', 'Tempe, AZ 85281', 'Ann Arbor, MI 48104'])}"
    ),
    "uk": lambda: (
        f"{R.choice(['Flat ' + _hn(1, 12) + ', ', ''])}{_hn(1, 160)} {R.choice(['Kingsley Road', 'Chatsworth Street', 'Orchard Lane', 'Victoria Terrace'])}, {R.choice(['Leeds LS6 2AB', 'Bristol BS7 8NT', 'Manchester M14 5RD', 'Cardiff CF24 4HQ', 'London N16 7XJ'])}"
    ),
    "uk_nostreet": lambda: (
        f"{_hn(1, 60)} {R.choice(['Rosebank', 'Holly Mews', 'The Paddocks', 'Beechwood'])}, {R.choice(['Glasgow G12 8QQ', 'York YO31 7EP', 'Norwich NR2 3LJ'])}"
    ),
    "de": lambda: (
        f"{R.choice(['Hauptstraße', 'Lindenstraße', 'Bahnhofstr.', 'Schillerstraße', 'Goethestr.', 'Am Mühlbach', 'Rosenweg'])} {_hn(1, 140)}{R.choice(['', 'a', 'b'])}, {R.choice(['10827 Berlin', '80331 München', '50667 Köln', '20095 Hamburg', '70173 Stuttgart', '04109 Leipzig'])}"
    ),
    "fr": lambda: (
        f"{_hn(1, 140)}{R.choice(['', ' bis', ' ter'])} {R.choice(['rue des Lilas', 'avenue Jean Jaurès', 'boulevard Voltaire', 'rue de la République', 'impasse des Tilleuls', 'chemin du Moulin'])}, {R.choice(['69003 Lyon', '75011 Paris', '13006 Marseille', '31000 Toulouse', '44000 Nantes', '33800 Bordeaux'])}"
    ),
    "es": lambda: (
        f"{R.choice(['Calle de Alcalá', 'C/ Mayor', 'Avda. de la Constitución', 'Calle Sierpes', 'Passeig de Gràcia', 'Calle Larios'])} {_hn(1, 200)}, {R.choice(['3º izq.', '2º B', 'bajo', '5º 1ª'])}, {R.choice(['28009 Madrid', '41004 Sevilla', '08008 Barcelona', '29005 Málaga', '46001 València'])}"
    ),
    "it": lambda: (
        f"{R.choice(['Via Garibaldi', 'Via Roma', 'Corso Vittorio Emanuele II', 'Viale dei Mille', 'Piazza Cavour', 'Via della Spiga'])} {_hn(1, 120)}, {R.choice(['20121 Milano MI', '00185 Roma RM', '10123 Torino TO', '50123 Firenze FI', '40126 Bologna BO', '80134 Napoli NA'])}"
    ),
    "nl": lambda: (
        f"{R.choice(['Prinsengracht', 'Oudegracht', 'Kerkstraat', 'Damrak', 'Witte de Withstraat', 'Molenweg'])} {_hn(1, 400)}{R.choice(['', '-2', 'A', '-hs'])}, {R.choice(['1016 GV Amsterdam', '3511 AL Utrecht', '3012 BN Rotterdam', '2511 CV Den Haag', '9711 LM Groningen'])}"
    ),
    "pl": lambda: (
        f"ul. {R.choice(['Marszałkowska', 'Długa', 'Piotrkowska', 'Floriańska', 'Słowackiego', 'Ogrodowa'])} {_hn(1, 150)}{R.choice(['', '/' + _hn(1, 40), ' m. ' + _hn(1, 60)])}, {R.choice(['00-514 Warszawa', '80-831 Gdańsk', '90-001 Łódź', '31-019 Kraków', '50-077 Wrocław'])}"
    ),
    "se": lambda: (
        f"{R.choice(['Storgatan', 'Drottninggatan', 'Kungsholmsgatan', 'Linnégatan', 'Västra Hamngatan', 'Björkvägen'])} {_hn(1, 90)}{R.choice(['', ' lgh 1' + _hn(101, 402)])}, {R.choice(['114 51 Stockholm', '411 14 Göteborg', '211 22 Malmö', '753 20 Uppsala'])}"
    ),
    "jp": lambda: (
        f"〒{d(3)}-{d(4)} {R.choice(['東京都渋谷区道玄坂', '大阪府大阪市北区梅田', '京都府京都市中京区河原町通', '神奈川県横浜市中区山下町', '福岡県福岡市中央区天神'])}{R.randint(1, 5)}丁目{R.randint(1, 20)}-{R.randint(1, 15)}{R.choice(['', ' ' + R.choice(['グランドメゾン', 'サンハイツ', 'パークコート']) + str(R.randint(101, 905)) + '号室'])}"
    ),
    "kr": lambda: (
        f"{R.choice(['서울특별시 강남구 테헤란로', '서울특별시 마포구 월드컵북로', '부산광역시 해운대구 해운대해변로', '경기도 성남시 분당구 판교역로', '대구광역시 중구 동성로'])} {R.randint(1, 300)}{R.choice(['', ', ' + str(R.randint(101, 115)) + '동 ' + str(R.randint(101, 2504)) + '호'])} ({d(5)})"
    ),
    "br": lambda: (
        f"{R.choice(['Rua das Flores', 'Av. Paulista', 'Rua Oscar Freire', 'Rua XV de Novembro', 'Av. Atlântica'])}, {_hn(10, 2500)}{R.choice(['', ', apto ' + _hn(11, 184), ', casa 2'])} – {R.choice(['Pinheiros, São Paulo – SP, 05422-010', 'Copacabana, Rio de Janeiro – RJ, 22021-001', 'Centro, Curitiba – PR, 80020-310', 'Savassi, Belo Horizonte – MG, 30140-071'])}"
    ),
    "mx": lambda: (
        f"{R.choice(['Av. Insurgentes Sur', 'Calle Durango', 'Av. Chapultepec', 'Calle Morelos', 'Av. Vallarta'])} {_hn(10, 2400)}{R.choice(['', ' Int. ' + _hn(1, 30)])}, Col. {R.choice(['Roma Norte, 06700 Ciudad de México, CDMX', 'Del Valle, 03100 Ciudad de México, CDMX', 'Americana, 44160 Guadalajara, Jal.', 'Centro, 64000 Monterrey, N.L.'])}"
    ),
    "in": lambda: (
        f"{R.choice(['Flat ' + _hn(101, 1204) + ', ', 'House No. ' + _hn(1, 600) + ', '])}{R.choice(['Sai Residency, 14th Cross, Indiranagar, Bengaluru 560038', 'Sector 21, Plot 44, Gurugram, Haryana 122016', 'Shivaji Nagar, Pune, Maharashtra 411005', 'Anna Nagar West, Chennai 600040', 'Salt Lake Sector V, Kolkata 700091'])}"
    ),
    "cn": lambda: (
        f"{R.choice(['北京市朝阳区建国路', '上海市徐汇区漕溪北路', '广东省深圳市南山区科技园南路', '浙江省杭州市西湖区文三路', '四川省成都市武侯区人民南路'])}{R.randint(1, 400)}号{R.choice(['', str(R.randint(1, 12)) + '栋' + str(R.randint(101, 2808)) + '室'])}"
    ),
    "ru": lambda: (
        f"{R.choice(['ул. Ленина', 'пр. Мира', 'ул. Тверская', 'Невский пр.', 'ул. Гагарина'])}, д. {_hn(1, 120)}, кв. {_hn(1, 220)}, {R.choice(['Екатеринбург, 620014', 'Москва, 125009', 'Санкт-Петербург, 191025', 'Новосибирск, 630099', 'Казань, 420111'])}"
    ),
    "ca": lambda: (
        f"{R.choice(['', _hn(101, 2405) + ' - '])}{_hn(10, 9000)} {R.choice(['Howe St', 'rue Saint-Denis', 'Bloor St W', 'Jasper Ave NW', 'Barrington St'])}, {R.choice(['Vancouver, BC V6Z 2S8', 'Montréal, QC H2X 3K4', 'Toronto, ON M5S 1V6', 'Edmonton, AB T5J 0K7', 'Halifax, NS B3J 1P3'])}"
    ),
    "au": lambda: (
        f"{R.choice(['', 'Unit ' + _hn(1, 30) + ', '])}{_hn(1, 300)} {R.choice(['Smith Street', 'Chapel St', 'Beach Road', 'Oxford Street', 'James Street'])}, {R.choice(['Fitzroy VIC 3065', 'Paddington NSW 2021', 'Fortitude Valley QLD 4006', 'Fremantle WA 6160', 'Glenelg SA 5045'])}"
    ),
    "nz": lambda: (
        f"{_hn(1, 250)} {R.choice(['Ponsonby Road', 'Cuba Street', 'Riccarton Road', 'Tay Street'])}, {R.choice(['Grey Lynn, Auckland 1021', 'Te Aro, Wellington 6011', 'Christchurch 8041', 'Invercargill 9810'])}"
    ),
    "tr": lambda: (
        f"{R.choice(['Atatürk Mah.', 'Bağdat Cad.', 'Cumhuriyet Mah.', 'Kızılay Mah.'])} {R.choice(['Gül Sok.', 'İnönü Cad.', 'Lale Sok.'])} No: {_hn(1, 120)} D: {_hn(1, 24)}, {R.choice(['34758 Ataşehir/İstanbul', '06420 Çankaya/Ankara', '35220 Konak/İzmir'])}"
    ),
    "pt": lambda: (
        f"{R.choice(['Rua Augusta', 'Avenida da Liberdade', 'Rua de Santa Catarina', 'Travessa do Carmo'])}, {_hn(1, 300)}, {R.choice(['2.º Esq.', '1.º Dto.', 'R/C'])}, {R.choice(['1100-053 Lisboa', '4000-442 Porto', '3000-150 Coimbra'])}"
    ),
    "ie": lambda: (
        f"{_hn(1, 120)} {R.choice(['Ranelagh Road', 'Glasthule Road', 'Oakfield Park', 'Shandon Street'])}, {R.choice(['Dublin 6, D06 C6X2', 'Dún Laoghaire, Co. Dublin A96 K7W4', 'Cork T23 XE10', 'Galway H91 R2X7'])}"
    ),
    "ch": lambda: (
        f"{R.choice(['Bahnhofstrasse', 'Rue du Rhône', 'Via Nassa', 'Kramgasse', 'Seefeldstrasse'])} {_hn(1, 120)}, {R.choice(['8001 Zürich', '1204 Genève', '6900 Lugano', '3011 Bern', '4051 Basel'])}"
    ),
    "at": lambda: (
        f"{R.choice(['Mariahilfer Straße', 'Getreidegasse', 'Herrengasse', 'Landstraßer Hauptstraße'])} {_hn(1, 150)}/{_hn(1, 30)}, {R.choice(['1060 Wien', '5020 Salzburg', '8010 Graz', '6020 Innsbruck'])}"
    ),
    "gr": lambda: (
        f"{R.choice(['Οδός Ερμού', 'Λεωφόρος Κηφισίας', 'Οδός Τσιμισκή', 'Οδός Πατησίων'])} {_hn(1, 250)}, {R.choice(['105 63 Αθήνα', '546 22 Θεσσαλονίκη', '115 26 Αθήνα'])}"
    ),
    "dk": lambda: (
        f"{R.choice(['Nørrebrogade', 'Vesterbrogade', 'Østerbrogade', 'Jægersborggade'])} {_hn(1, 200)}, {R.choice(['2. tv.', '3. th.', 'st.'])}, {R.choice(['2200 København N', '1620 København V', '8000 Aarhus C'])}"
    ),
    "za": lambda: (
        f"{_hn(1, 90)} {R.choice(['Jan Smuts Avenue', 'Long Street', 'Florida Road', 'Kloof Street'])}, {R.choice(['Parktown, Johannesburg, 2193', 'Cape Town City Centre, Cape Town, 8001', 'Morningside, Durban, 4001'])}"
    ),
    "ar": lambda: (
        f"{R.choice(['Av. Corrientes', 'Calle Florida', 'Av. Santa Fe', 'Calle Defensa'])} {_hn(100, 5000)}, {R.choice(['piso 4 depto. B', '3° A', 'PB 2'])}, {R.choice(['C1043 CABA', 'C1425 CABA', 'X5000 Córdoba'])}"
    ),
    "sa": lambda: (
        f"{R.choice(['شارع الملك فهد', 'طريق الأمير سلطان', 'شارع التحلية'])}، مبنى {_hn(1000, 8999)}، حي {R.choice(['العليا', 'الروضة', 'النخيل'])}، {R.choice(['الرياض 12211', 'جدة 23432', 'الدمام 32241'])}"
    ),
}
for _c, _f in ADDR.items():
    GEN[f"addr_{_c}"] = (lambda f: lambda ctx, key: f())(_f)

# --------------------------------------------------------------------------------------------
# benign look-alike generators


def _uuid() -> str:
    h = rs(HEXL, 32)
    h = h[:12] + "4" + h[13:16] + R.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _isbn13() -> str:
    body = R.choice(["978", "979"]) + d(9)
    s = sum(int(a) * (1 if i % 2 == 0 else 3) for i, a in enumerate(body))
    return body + str((10 - s % 10) % 10)


def _ean13() -> str:
    body = R.choice(["40", "50", "76", "87", "30", "84", "80"]) + d(10)
    s = sum(int(a) * (1 if i % 2 == 0 else 3) for i, a in enumerate(body))
    return body + str((10 - s % 10) % 10)


def _ulid() -> str:
    return (
        rs("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26).replace(" ", "")[:0]
        + R.choice("01")
        + rs("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 25)
    )


GEN.update(
    {
        "uuid": lambda c, k: _uuid(),
        "ulid": lambda c, k: _ulid(),
        "md5": lambda c, k: hashlib.md5(rbytes(16)).hexdigest(),
        "sha1": lambda c, k: hashlib.sha1(rbytes(16)).hexdigest(),
        "sha256": lambda c, k: hashlib.sha256(rbytes(16)).hexdigest(),
        "sha512": lambda c, k: hashlib.sha512(rbytes(16)).hexdigest(),
        "bcrypt": lambda c, k: "$2b$12$" + rs("./" + ALNUM, 53),
        "argon2": lambda c, k: (
            f"$argon2id$v=19$m=65536,t=3,p=4${b64(rbytes(16)).rstrip('=')}${b64(rbytes(32)).rstrip('=')}"
        ),
        "sha256_b64": lambda c, k: "sha256-" + b64(rbytes(32)),
        "git_sha": lambda c, k: rs(HEXL, 40),
        "short_sha": lambda c, k: rs(HEXL, 7),
        "isbn": lambda c, k: _isbn13(),
        "ean": lambda c, k: _ean13(),
        "imei_like": lambda c, k: (lambda b: b + luhn_check_digit(b))("35" + d(12)),
        "unix_ms": lambda c, k: str(R.randint(1_690_000_000_000, 1_760_000_000_000)),
        "unix_s": lambda c, k: str(R.randint(1_690_000_000, 1_760_000_000)),
        "semver": lambda c, k: f"{R.randint(0, 14)}.{R.randint(0, 40)}.{R.randint(0, 30)}",
        "ipv4": lambda c, k: (
            f"{R.choice([10, 172, 192, 34, 52, 185])}.{R.randint(0, 255)}.{R.randint(0, 255)}.{R.randint(1, 254)}"
        ),
        "ipv6": lambda c, k: (
            "2001:db8:" + ":".join(rs(HEXL, 4) for _ in range(3)) + "::" + rs(HEXL, 3)
        ),
        "mac": lambda c, k: ":".join(rs(HEXL, 2) for _ in range(6)),
        "order_no": lambda c, k: (
            f"{R.choice(['ORD', 'SO', 'PO', 'A'])}-{R.randint(2023, 2026)}-{d(6)}"
        ),
        "invoice_no": lambda c, k: f"INV-{d(4)}-{d(5)}",
        "ticket_no": lambda c, k: (
            f"{R.choice(['SUP', 'OPS', 'INC', 'HD'])}-{R.randint(1000, 99999)}"
        ),
        "ups": lambda c, k: "1Z" + rs(UP + DIG, 6) + d(10),
        "fedex": lambda c, k: d(12),
        "usps": lambda c, k: "9400" + d(18),
        "dhl": lambda c, k: "JD01" + d(16),
        "booking": lambda c, k: rs(UP.replace("O", "").replace("I", "") + "23456789", 6),
        "serial": lambda c, k: f"SN{d(4)}-{rs(UP + DIG, 6)}",
        "part_no": lambda c, k: f"{rs(UP, 2)}-{d(4)}-{d(3)}{R.choice(UP)}",
        "pubkey_ed": lambda c, k: (
            "ssh-ed25519 " + b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rbytes(32))
        ),
        "pubkey_rsa": lambda c, k: (
            "ssh-rsa "
            + b64(
                b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x01\x00"
                + rbytes(256)
            )
        ),
        "fp_sha256": lambda c, k: "SHA256:" + b64(rbytes(32)).rstrip("="),
        "fp_colon": lambda c, k: ":".join(rs(HEXU, 2) for _ in range(32)),
        "fp_sha1_colon": lambda c, k: ":".join(rs(HEXU, 2) for _ in range(20)),
        "pgp_fpr": lambda c, k: " ".join(rs(HEXU, 4) for _ in range(10)),
        "lat": lambda c, k: f"{R.uniform(-40, 60):.5f}",
        "lon": lambda c, k: f"{R.uniform(-120, 140):.5f}",
        "price": lambda c, k: f"{R.randint(3, 2400)}.{R.choice(['00', '49', '95', '99'])}",
        "req_id": lambda c, k: f"req_{rs(ALNUM, 24)}",
        "trace_id": lambda c, k: rs(HEXL, 32),
        "span_id": lambda c, k: rs(HEXL, 16),
        "docker_digest": lambda c, k: "sha256:" + rs(HEXL, 64),
        "cert_pem": lambda c, k: (
            "-----BEGIN CERTIFICATE-----\n"
            + wrap("MIIDdzCCAl+gAwIBAgIE" + b64(rbytes(700))[20:])
            + "\n-----END CERTIFICATE-----"
        ),
        "pgp_pub": lambda c, k: (
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n"
            + wrap("mQINBG" + b64(rbytes(520))[6:])
            + "\n="
            + b64(rbytes(3))
            + "\n-----END PGP PUBLIC KEY BLOCK-----"
        ),
        "pub_pem": lambda c, k: (
            "-----BEGIN PUBLIC KEY-----\n"
            + wrap(
                "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" + b64(rbytes(260))[44:] + "IDAQAB"
            )
            + "\n-----END PUBLIC KEY-----"
        ),
        "b64_json": lambda c, k: b64(
            json.dumps(
                R.choice(
                    [
                        {"theme": "dark", "lang": "fr", "fontSize": 14},
                        {"page": 3, "per_page": 50, "sort": "-created_at"},
                        {"event": "checkout_viewed", "variant": "B"},
                        {"widget": "weather", "units": "metric"},
                    ]
                ),
                separators=(",", ":"),
            ).encode()
        ),
        "k8s_uid": lambda c, k: _uuid(),
        "asin": lambda c, k: "B0" + rs(UP + DIG, 8),
        "sku": lambda c, k: f"{rs(UP, 3)}-{d(5)}-{rs(UP, 2)}",
        "vin_like": lambda c, k: rs("ABCDEFGHJKLMNPRSTUVWXYZ0123456789", 17),
    }
)


# ============================================================================================
# Templates. ⟦gen⟧ is replaced by a generated value; ⟦gen__2⟧ is a second, distinct value of the
# same kind. Every template is used exactly once.
# ============================================================================================

SECRET = [
    # ---- AWS -------------------------------------------------------------------------------
    "Deploy creds for the media bucket (don't lose these again):\naws_access_key_id=⟦aws_akid⟧\naws_secret_access_key=⟦aws_secret⟧",
    "[profile billing-prod]\nregion = eu-central-1\naws_access_key_id = ⟦aws_akid⟧\naws_secret_access_key = ⟦aws_secret⟧\noutput = json",
    "$ export AWS_ACCESS_KEY_ID=⟦aws_akid⟧\n$ export AWS_SECRET_ACCESS_KEY=⟦aws_secret⟧\n$ aws s3 sync ./dist s3://marketing-site-prod --delete",
    "Temporary creds from the SSO broker, valid until 18:00 UTC: AccessKeyId ⟦aws_asia⟧, SecretAccessKey ⟦aws_secret⟧, SessionToken ⟦aws_session⟧",
    "Hey, the Lambda can't read the queue. I put the IAM user's key in the env vars for now: ⟦aws_akid⟧ / ⟦aws_secret⟧ — will move it to Secrets Manager after the demo.",
    'resource "aws_s3_bucket" "logs" {}\nprovider "aws" {\n  region     = "us-west-2"\n  access_key = "⟦aws_akid⟧"\n  secret_key = "⟦aws_secret⟧"\n}',
    "Incident note 14:02 — the key ⟦aws_akid⟧ (secret ⟦aws_secret⟧) was pasted into the public Jira ticket; revoke it and audit CloudTrail for account ⟦aws_account⟧.",
    '{"Credentials": {"AccessKeyId": "⟦aws_asia⟧", "SecretAccessKey": "⟦aws_secret⟧", "SessionToken": "⟦aws_session⟧", "Expiration": "2025-03-14T18:21:09Z"}}',
    # ---- GCP -------------------------------------------------------------------------------
    "Here's the service-account file for the BigQuery loader, save it as key.json:\n⟦gcp_sa_json⟧",
    "GOOGLE_MAPS_API_KEY=⟦gcp_api⟧ # unrestricted, used by the geocoder cron",
    "The YouTube Data API key for the analytics dashboard is ⟦gcp_api⟧ — quota is 10k units/day so please don't hammer it.",
    'curl "https://translation.googleapis.com/language/translate/v2?key=⟦gcp_api⟧" -d q=bonjour -d target=en',
    "kubectl create secret generic gcs-writer --from-literal=key.json='⟦gcp_sa_json⟧'",
    # ---- Azure -----------------------------------------------------------------------------
    'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=invoicearchive01;AccountKey=⟦azure_key⟧;EndpointSuffix=core.windows.net"',
    "Storage account 'rawtelemetry' primary key: ⟦azure_key⟧ (key2 is the same rotation, ignore it)",
    "SAS for the upload container, expires end of year: https://partnerdrop.blob.core.windows.net/incoming?sv=2022-11-02&ss=b&srt=co&sp=rwlac&se=2025-12-31T23:59:59Z&st=2025-01-01T00:00:00Z&spr=https&sig=⟦azure_sas_sig⟧",
    '"ServiceBus": { "ConnectionString": "Endpoint=sb://orders-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=⟦azure_sb_key⟧" }',
    "App registration for the HR sync: tenant 9f1c..., client id in the portal, client secret value ⟦azure_client_secret⟧ (expires in 24 months).",
    "az login --service-principal -u 3b1c0f5e-2d3a-4c88-9e1b-7a2f6d0c4e19 -p '⟦azure_client_secret⟧' --tenant contoso.onmicrosoft.com",
    # ---- DigitalOcean / Alibaba / Cloudflare -------------------------------------------------
    "doctl auth init --access-token ⟦do_pat⟧",
    "DigitalOcean token for the droplet autoscaler: ⟦do_pat⟧. Spaces key ⟦do_spaces⟧ with secret ⟦do_spaces_secret⟧.",
    "阿里云 AccessKey 给你了：AccessKey ID ⟦ali_akid⟧，AccessKey Secret ⟦ali_secret⟧，用完记得在控制台禁用。",
    "ALIBABA_CLOUD_ACCESS_KEY_ID=⟦ali_akid⟧\nALIBABA_CLOUD_ACCESS_KEY_SECRET=⟦ali_secret⟧\nOSS_BUCKET=cdn-assets-hz",
    "Cloudflare API token (Zone:DNS:Edit on all zones) for certbot: ⟦cf_token⟧",
    "CF_API_EMAIL=ops@our-domain\nCF_API_KEY=⟦cf_global⟧   # global key, TODO replace with scoped token",
    "origin CA key for the wildcard cert renewals → ⟦cf_origin_ca⟧",
    # ---- GitHub / GitLab / Bitbucket --------------------------------------------------------
    "git remote set-url origin https://⟦ghp⟧@github.com/northwind/infra-live.git",
    "GitHub PAT with repo+workflow scopes for the release bot: ⟦ghp⟧ (expires in 90 days).",
    "Pasting the OAuth token the CLI printed so I remember it: ⟦gho⟧",
    "[2025-02-11 09:14:52] runner: using installation token ⟦ghs⟧ for northwind/payments",
    "Fine-grained token for the docs repo, read/write contents only: ⟦gh_fine⟧",
    "//npm.pkg.github.com/:_authToken=⟦ghp⟧\n@northwind:registry=https://npm.pkg.github.com",
    "gh auth login --with-token <<< ⟦gho⟧",
    "GITLAB_TOKEN=⟦glpat⟧\nCI_SERVER_URL=https://gitlab.internal.example-corp.net",
    "Registered the new runner with ⟦glrt⟧ — the old one on build-07 can be unregistered.",
    "Deploy token for pulling images from the GitLab registry: username gitlab+deploy-token-41, token ⟦gldt⟧",
    "Bitbucket app password for the Jenkins user (repo read/write, PR write): ⟦bb_app⟧",
    "BITBUCKET_ACCESS_TOKEN=⟦bb_access⟧",
    # ---- Slack / Discord / Telegram ----------------------------------------------------------
    "SLACK_BOT_TOKEN=⟦slack_bot⟧\nSLACK_SIGNING_SECRET=⟦hex32⟧",
    "The alerting script posts to ⟦slack_hook⟧ — that webhook goes straight into #oncall.",
    "User token for the archive export (it has admin scope, be careful): ⟦slack_user⟧",
    "Socket mode app-level token: ⟦slack_app⟧",
    "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy finished\"}' ⟦slack_hook⟧",
    "Bot token for the raid-scheduler Discord bot: ⟦discord_bot⟧ — keep it out of the repo this time lol",
    "Our game server posts kills to ⟦discord_hook⟧",
    "DISCORD_TOKEN=⟦discord_bot⟧\nGUILD_ID=893127554630352906\nPREFIX=!",
    "BotFather gave me this for the pharmacy reminder bot: ⟦telegram⟧",
    "TELEGRAM_BOT_TOKEN=⟦telegram⟧\nTELEGRAM_CHAT_ID=-1001876543210",
    'curl -s "https://api.telegram.org/bot⟦telegram⟧/sendMessage?chat_id=48213377&text=backup+ok"',
    # ---- Payments ----------------------------------------------------------------------------
    "Stripe live secret key for the checkout service: ⟦stripe_sk⟧",
    "STRIPE_SECRET_KEY=⟦stripe_sk⟧\nSTRIPE_WEBHOOK_SECRET=⟦stripe_whsec⟧",
    "Restricted key for the reporting job (read-only charges & payouts): ⟦stripe_rk⟧",
    "The endpoint signing secret for /webhooks/stripe in production is ⟦stripe_whsec⟧, the old one was revoked Friday.",
    "square:\n  environment: production\n  access_token: ⟦square⟧\n  location_id: L8K2Z1V3QW0XR",
    "Square OAuth application secret ⟦square_oauth⟧ — needed for the token refresh flow.",
    "BRAINTREE_ACCESS_TOKEN=⟦braintree⟧",
    "PayPal REST app (live): client id ⟦paypal_id⟧ secret ⟦paypal_secret⟧",
    "PLAID_CLIENT_ID=⟦plaid_id⟧\nPLAID_SECRET=⟦plaid_secret⟧\nPLAID_ENV=production",
    "Stored access token for the user's Chase link: ⟦plaid_access⟧",
    # ---- Twilio / SendGrid / Mailgun / Mailchimp ---------------------------------------------
    "TWILIO_ACCOUNT_SID=⟦twilio_sid⟧\nTWILIO_AUTH_TOKEN=⟦twilio_token⟧",
    "Twilio creds for the SMS OTP sender → SID ⟦twilio_sid⟧, auth token ⟦twilio_token⟧.",
    'client = Client("⟦twilio_sk⟧", "⟦twilio_sk_secret⟧", "⟦twilio_sid⟧")',
    "SendGrid key for transactional mail (full access, sorry): ⟦sendgrid⟧",
    "EMAIL_BACKEND=sendgrid\nSENDGRID_API_KEY=⟦sendgrid⟧\nDEFAULT_FROM=no-reply",
    "Mailgun private API key: ⟦mailgun⟧ — domain mg.shop-notify.net",
    "curl -s --user 'api:⟦mailgun_old⟧' https://api.mailgun.net/v3/mg.newsletter.io/messages -F to=list@mg.newsletter.io -F subject=test",
    "Mailchimp API key for the newsletter sync: ⟦mailchimp⟧",
    "MAILCHIMP_KEY=⟦mailchimp⟧ MAILCHIMP_LIST=3f9e1c0a7b",
    # ---- AI providers ------------------------------------------------------------------------
    "OPENAI_API_KEY=⟦openai⟧",
    'from openai import OpenAI\nclient = OpenAI(api_key="⟦openai⟧")',
    "Service account key for the batch summariser: ⟦openai_svc⟧",
    "found this in an old notebook cell, is it still live? openai.api_key = '⟦openai_legacy⟧'",
    "ANTHROPIC_API_KEY=⟦anthropic⟧",
    "Claude key for the eval harness lives here for now: ⟦anthropic⟧ (org: research-sandbox)",
    "Admin key for usage reports: ⟦anthropic_admin⟧ — don't give this one to the interns.",
    "huggingface-cli login --token ⟦hf⟧",
    "HF write token so the trainer can push checkpoints to the hub: ⟦hf⟧",
    "export REPLICATE_API_TOKEN=⟦replicate⟧",
    'co = cohere.Client("⟦cohere⟧")  # prod key, rerank endpoint',
    "GROQ_API_KEY=⟦groq⟧",
    "Mistral La Plateforme key for the French summaries: ⟦mistral⟧",
    # ---- registries ----------------------------------------------------------------------------
    "//registry.npmjs.org/:_authToken=⟦npm⟧",
    "npm automation token for publishing @northwind/ui from CI: ⟦npm⟧",
    "[pypi]\n  username = __token__\n  password = ⟦pypi⟧",
    "twine upload dist/* -u __token__ -p ⟦pypi⟧",
    "echo ⟦docker⟧ | docker login -u northwindci --password-stdin",
    "Docker Hub PAT (read/write) for the nightly image push: ⟦docker⟧",
    "---\n:rubygems_api_key: ⟦rubygems⟧",
    # ---- SaaS --------------------------------------------------------------------------------
    "Shopify Admin API access token for the inventory app: ⟦shpat⟧",
    "SHOPIFY_API_SECRET=⟦shpss⟧\nSHOPIFY_ACCESS_TOKEN=⟦shpat⟧\nSHOP=hoodie-lab.myshopify.com",
    "Jira API token for the changelog script (user is release-bot): ⟦atlassian⟧",
    "curl -u release-bot@acme-tools.dev:⟦atlassian⟧ https://acme.atlassian.net/rest/api/3/myself",
    "Notion integration secret for the meeting-notes importer: ⟦notion⟧",
    "NOTION_TOKEN=⟦notion_ntn⟧\nNOTION_DATABASE_ID=8a1f2c33b9e04c4f9d1e7b2a6c5d4e3f",
    "Linear personal API key: ⟦linear⟧ — used by the triage bot",
    "Figma token so the icon exporter can read the design system file: ⟦figma⟧",
    "vercel deploy --prod --token ⟦vercel⟧",
    "NETLIFY_AUTH_TOKEN=⟦netlify⟧\nNETLIFY_SITE_ID=5c1d9a7e-63f2-4c2b-8e0a-1f4d7b9c2e61",
    "heroku auth token says ⟦heroku⟧, paste it in the GitHub secret HEROKU_API_KEY",
    "datadog:\n  api_key: ⟦dd_api⟧\n  app_key: ⟦dd_app⟧\n  site: datadoghq.eu",
    "DD_API_KEY=⟦dd_api⟧ DD_SITE=us5.datadoghq.com ./install_script_agent7.sh",
    "New Relic user key for NerdGraph queries: ⟦nr_user⟧",
    "newrelic.yml → license_key: '⟦nr_license⟧'",
    "SENTRY_DSN=⟦sentry_dsn⟧",
    'Sentry.init({ dsn: "⟦sentry_dsn⟧", tracesSampleRate: 0.2 });',
    "sentry-cli auth token for release uploads: ⟦sentry_user⟧",
    "DOPPLER_TOKEN=⟦doppler⟧ doppler run -- ./server",
    "Vault root token from the unseal ceremony (revoke after bootstrap!): ⟦vault⟧",
    "export VAULT_ADDR=https://vault.internal:8200\nexport VAULT_TOKEN=⟦vault_long⟧",
    'credentials "app.terraform.io" {\n  token = "⟦tfc⟧"\n}',
    "Okta API token for the SCIM sync (created by admin, 30-day inactivity expiry): ⟦okta⟧",
    "AUTH0_DOMAIN=northwind.eu.auth0.com\nAUTH0_CLIENT_ID=⟦auth0_id⟧\nAUTH0_CLIENT_SECRET=⟦auth0_secret⟧",
    "The management API client secret in Auth0 is ⟦auth0_secret⟧, rotate if anyone leaves the team.",
    "FCM legacy server key for the push service: ⟦fcm⟧",
    "SUPABASE_SERVICE_ROLE_KEY=⟦supabase_jwt⟧",
    "Supabase secret key for the edge functions (bypasses RLS!): ⟦supabase_secret⟧",
    "Algolia app ⟦algolia_app⟧, admin API key ⟦algolia_admin⟧ (the search-only key is the other one).",
    "MAPBOX_SECRET_TOKEN=⟦mapbox_sk⟧  # downloads:read scope for the iOS build",
    "Postman API key for the collection backup job: ⟦postman⟧",
    "Grafana service account token for the dashboards-as-code pipeline: ⟦grafana_sa⟧",
    "PULUMI_ACCESS_TOKEN=⟦pulumi⟧",
    "fly secrets are set, but the deploy token for CI is ⟦flyio⟧",
    "SNYK_TOKEN=⟦snyk⟧",
    "Jenkins API token for user 'deployer': ⟦jenkins⟧ — used by the trigger script on the jump host.",
    "Age secret key for decrypting the SOPS files: ⟦age⟧",
    "DOPPLER_TOKEN=⟦doppler_pt⟧  # personal token, scoped to my workplace only",
    "The self-hosted runner registered with ⟦ghr⟧ — if that shows up anywhere public, remove the runner.",
    "App user-to-server token captured in the debug log: ⟦ghu⟧",
    "Volcengine AK for the TOS bucket: ⟦lark_ak⟧, SK ⟦b64_32⟧",
    "X-API-Key: ⟦api_key_generic⟧ (prod key for the partner weather API)",
    # ---- private keys ---------------------------------------------------------------------------
    "ssh key for the backup box, put it in ~/.ssh/backup_ed25519:\n⟦openssh_pem⟧",
    "⟦rsa_pem⟧",
    "TLS private key for api.partner-portal (goes with the cert we already sent):\n⟦pkcs8_pem⟧",
    "apple push key for the notifier:\n⟦ec_pem⟧",
    "Deploy key on the build server (read-only on the monorepo):\n⟦openssh_pem⟧\nfingerprint SHA256:ln0Kq2bW8m1c3R2X7pQ",
    "Export of my signing key so I can import it on the new laptop:\n⟦pgp_priv⟧",
    "[Interface]\nPrivateKey = ⟦wireguard⟧\nAddress = 10.66.0.2/32\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = ⟦wireguard_pub⟧\nEndpoint = vpn.home-lab.net:51820\nAllowedIPs = 0.0.0.0/0",
    "wg set wg0 private-key <(echo ⟦wireguard⟧) peer ⟦wireguard_pub⟧ allowed-ips 10.8.0.0/24",
    "Legacy RSA key from the 2019 SFTP integration with the bank — still used by the payroll export:\n⟦rsa_pem⟧",
    # ---- seed phrases --------------------------------------------------------------------------
    "Ledger recovery phrase (written on the card in the safe too): ⟦seed24⟧",
    "metamask seed: ⟦seed12⟧",
    "Note to self — hot wallet for the NFT drop, 12 words: ⟦seed12⟧",
    "Frase de recuperación de la billetera de mamá: ⟦seed12⟧. Guárdala offline.",
    # ---- JWT / session / cookies ---------------------------------------------------------------
    'curl -H "Authorization: Bearer ⟦jwt⟧" https://api.internal/v2/accounts/me',
    "GET /dashboard HTTP/1.1\nHost: admin.shopfront.io\nCookie: session=⟦jwt⟧; theme=dark",
    "Copy of my admin session cookie so you can reproduce the bug: sessionid=⟦session_id⟧",
    "The access token from the login response: ⟦jwt_rs⟧ (refresh token: ⟦session_id⟧)",
    "[auth] ok user=4411 token=⟦jwt⟧ ttl=3600",
    'document.cookie = "remember_token=⟦session_id⟧; path=/; secure"',
    "Set-Cookie: __Host-auth=⟦jwt⟧; Path=/; Secure; HttpOnly; SameSite=Lax",
    # ---- basic auth URLs ------------------------------------------------------------------------
    "pip install --index-url https://ci-reader:⟦pw_url⟧@pypi.internal.northwind.dev/simple/ northwind-core",
    "The RTSP stream from the garage camera: rtsp://admin:⟦pw_url⟧@192.168.1.64:554/Streaming/Channels/101",
    "git clone https://deploy:⟦pw_url⟧@git.intra.example-corp.org/platform/charts.git",
    "Prometheus scrapes https://metrics:⟦pw_url⟧@edge-03.cdn.internal/metrics every 15s",
    # ---- connection strings ---------------------------------------------------------------------
    "DATABASE_URL=postgres://orders_app:⟦pw_url⟧@orders-db.prod.svc.cluster.local:5432/orders?sslmode=require",
    'psql "postgresql://analyst:⟦pw_url⟧@pg.eu-west-1.rds.amazonaws.com:5432/warehouse"',
    "mysql -h 10.20.3.14 -u root -p'⟦pw⟧' shop_prod < fix_orders.sql",
    "spring.datasource.url=jdbc:mysql://db-prod-01.internal:3306/inventory\nspring.datasource.username=inventory\nspring.datasource.password=⟦pw⟧",
    "MONGO_URI=mongodb+srv://svc-ingest:⟦pw_url⟧@cluster0.x7k2q.mongodb.net/events?retryWrites=true&w=majority",
    "Connect Compass with mongodb://admin:⟦pw_url⟧@10.0.7.21:27017/?authSource=admin",
    "REDIS_URL=rediss://default:⟦pw_url⟧@redis-18321.c1.eu-central-1.cloud.redislabs.com:18321",
    "redis-cli -h cache.internal -a '⟦pw⟧' FLUSHDB",
    "CELERY_BROKER_URL=amqp://celery:⟦pw_url⟧@rabbit.internal:5672/jobs",
    '"ConnectionStrings": {\n  "Default": "Server=tcp:sql-prod.database.windows.net,1433;Initial Catalog=Billing;User ID=billing_app;Password=⟦pw⟧;Encrypt=True;TrustServerCertificate=False;"\n}',
    "Data Source=SQL01\\\\HR;Initial Catalog=Payroll;User Id=sa;Password=⟦pw⟧;",
    "jdbc:postgresql://reporting.internal:5432/bi?user=metabase&password=⟦pw_url⟧&ssl=true",
    "url = jdbc:oracle:thin:scott/⟦pw_url⟧@//oradb.corp:1521/ORCLPDB1",
    "jdbc:sqlserver://mssql.corp:1433;databaseName=crm;user=crm_rw;password=⟦pw⟧;encrypt=true",
    # ---- passwords in config / shell -----------------------------------------------------------
    "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: ⟦pw⟧",
    "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'NAME': 'crm', 'USER': 'crm', 'PASSWORD': '⟦pw⟧', 'HOST': 'db'}}\nSECRET_KEY = '⟦django_secret⟧'",
    "machine ftp.partner-files.net\nlogin northwind_upload\npassword ⟦pw⟧",
    "db-prod-01.internal:5432:*:replicator:⟦pw⟧",
    "sshpass -p '⟦pw⟧' ssh -o StrictHostKeyChecking=no pi@192.168.0.42",
    "  512  curl -u admin:⟦pw⟧ http://localhost:15672/api/queues\n  513  history | tail",
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp-relay\ntype: Opaque\nstringData:\n  username: relay\n  password: "⟦pw⟧"',
    "SMTP_HOST=smtp.office365.com\nSMTP_USER=scanner\nSMTP_PASS=⟦pw⟧",
    "ldapsearch -x -H ldaps://dc01.corp.local -D 'CN=svc_ldap,OU=Service,DC=corp,DC=local' -w '⟦pw⟧' -b 'DC=corp,DC=local'",
    '<add key="SftpPassword" value="⟦pw⟧" />',
    "keystore.password=⟦pw⟧\nkey.alias=release\nkey.password=⟦pw__2⟧",
    "ansible_user: deploy\nansible_become_pass: ⟦pw⟧",
    "docker run -e MYSQL_ROOT_PASSWORD=⟦pw⟧ -p 3306:3306 -d mysql:8",
    '[client]\nuser=backup\npassword="⟦pw⟧"',
    # ---- passwords in prose, many languages -----------------------------------------------------
    "the wifi is ⟦pw_word⟧ btw, network name is Orchard-5G",
    "Guest network password: ⟦pw_word⟧ (it's on the fridge too)",
    "Reminder: the NAS admin login is admin / ⟦pw⟧",
    "For the shared Netflix just use my account, the password is ⟦pw_leet⟧ — don't change the profile pics!",
    "Mot de passe du wifi de la maison de vacances : ⟦pw_word⟧",
    "Salut ! Pour te connecter au compte EDF : identifiant habituel, mdp ⟦pw⟧. Bises",
    "Das WLAN-Passwort im Büro lautet ⟦pw_word⟧, falls jemand fragt.",
    "Zugang zum Router: Benutzer admin, Kennwort ⟦pw_leet⟧ – bitte nicht ändern.",
    "La contraseña del wifi es ⟦pw_word⟧, la red se llama MOVISTAR_8A21.",
    "Te paso la clave del correo de la tienda: ⟦pw⟧",
    "La password dell'account Amazon di famiglia è ⟦pw⟧, non cambiarla per favore.",
    "Senha do Wi-Fi do escritório: ⟦pw_word⟧",
    "A senha do internet banking da empresa ficou ⟦pw⟧ depois da troca de ontem.",
    "Het wachtwoord van de gedeelde Dropbox is ⟦pw⟧",
    "Hasło do wifi w mieszkaniu: ⟦pw_word⟧",
    "hasło do panelu hostingu to ⟦pw⟧ – login ten sam co zawsze",
    "Пароль от вайфая на даче: ⟦pw_word⟧",
    "Логин admin, пароль ⟦pw⟧ — это от роутера в серверной.",
    "Пароль до поштової скриньки бухгалтерії: ⟦pw⟧",
    "Heslo k wifi v chalupě je ⟦pw_word⟧",
    "Lösenordet till wifi:t är ⟦pw_word⟧",
    "Passordet til felleskontoen på Vipps-bedrift er ⟦pw⟧",
    "Adgangskoden til routeren er ⟦pw_leet⟧, brugernavnet er bare admin.",
    "Wifin salasana on ⟦pw_word⟧ — verkko on Koti_5G.",
    "Wifi şifresi: ⟦pw_word⟧, misafir ağına bağlanma.",
    "Ο κωδικός του wifi είναι ⟦pw_word⟧",
    "كلمة المرور الخاصة بالراوتر هي ⟦pw_leet⟧",
    "كلمة السر لحساب البريد المشترك: ⟦pw⟧",
    "הסיסמה לוויפי בבית: ⟦pw_word⟧",
    "वाईफाई का पासवर्ड ⟦pw_word⟧ है",
    "WiFi密码是 ⟦pw_word⟧，别告诉楼下的人。",
    "服务器 root 密码：⟦pw⟧",
    "パスワードは ⟦pw⟧ です。ログインIDはいつものメールアドレスです。",
    "自宅のWi-Fiのパスワード: ⟦pw_word⟧",
    "와이파이 비밀번호는 ⟦pw_word⟧ 입니다.",
    "Mật khẩu wifi quán là ⟦pw_word⟧ nha",
    "Kata sandi akun toko online: ⟦pw⟧",
    "รหัสผ่าน wifi คือ ⟦pw_word⟧ นะ",
    "A wifi jelszó: ⟦pw_word⟧",
    "Parola de la contul de hosting este ⟦pw⟧",
    "Wachtwoord kluis kantoor: ⟦pw_phrase⟧",
    # without a naming word
    "log into the staging box as root with ⟦pw⟧",
    "VPN: vpn.northwind.io, user jdoe-ext, ⟦pw_rand⟧",
    "WLAN im Gästezimmer: Netz Fritz!Box 7590 QX, Schlüssel ⟦pw_word⟧",
    "Router: admin / ⟦pw_leet⟧",
    'The master passphrase for the team KeePass is "⟦pw_phrase⟧".',
    "my bitwarden master: ⟦pw_phrase⟧ (writing it here because I keep forgetting it)",
    "ssh oracle@db-legacy then su - with ⟦pw⟧",
    "Zip file is encrypted, open it with ⟦pw_rand⟧",
    "7z x payroll_march.7z -p'⟦pw_rand⟧'",
    "Le PDF des fiches de paie s'ouvre avec ⟦pw_leet⟧",
    "unlock code for the encrypted USB stick: ⟦pw_rand⟧",
    # ---- PINs, door and alarm codes ----------------------------------------------------------
    "Door code for the building is ⟦pin4⟧# — the buzzer is broken, just punch it in.",
    "Alarm code: ⟦pin4⟧. You have 30 seconds after opening the front door to disarm it.",
    "Code de la porte d'entrée : ⟦pin4⟧B, puis 2e étage gauche.",
    "Türcode Hinterhof ⟦pin4⟧, Schlüsselbox am Fahrradkeller: ⟦pin4__2⟧",
    "The lockbox with the Airbnb keys opens with ⟦pin4⟧.",
    "PIN de la tarjeta del banco del club: ⟦pin4⟧",
    "SIM PIN ⟦pin4⟧, PUK ⟦pin6⟧⟦pin4__2⟧ — the card is in the drawer.",
    "Garage keypad: ⟦pin6⟧ then the * key.",
    "Sejfkoden på hotellrummet är ⟦pin4⟧",
    "暗証番号は ⟦pin4⟧ です（駐輪場のロッカー）",
    # ---- TOTP seeds / recovery codes ------------------------------------------------------------
    "2FA seed for the shared ops account (add it to your authenticator): ⟦totp⟧",
    "otpauth://totp/AWS:root-account?secret=⟦totp⟧&issuer=AWS",
    "MFA secret key shown during setup: ⟦totp16⟧ — I scanned it on the old phone only.",
    "GitHub recovery codes for the org owner account:\n⟦gh_recovery⟧",
    "Google backup codes (each works once):\n⟦google_backup⟧",
    "Recovery codes for the Proton account: ⟦recovery_line⟧",
    "Bitwarden two-step login recovery code: ⟦bw_recovery⟧",
    "Apple ID recovery key: ⟦apple_recovery⟧ — stored here until I print it.",
]


PERSONAL = [
    # ---- emails (varied shapes) --------------------------------------------------------------
    "⟦sex_f⟧Can you cc ⟦name_us⟧ on the contract thread? Her address is ⟦email⟧.",
    "New lead from the fair: ⟦name_de⟧, ⟦email⟧, interested in the Pro plan.",
    "From: ⟦name_fr⟧ <⟦email⟧>\nSubject: Re: devis cuisine\n\nBonjour, je vous renvoie le devis signé.",
    "contact,email,source\n⟦name_nl⟧,⟦email⟧,webinar-2025-03",
    "My personal email changed, please use ⟦email⟧ from now on. — ⟦first_uk⟧",
    "Reply-To: ⟦email⟧",
    "⟦sex_f⟧Je suis ⟦name_fr⟧, la maman de Léo. Pour toute question sur son inscription, écrivez-moi directement : ⟦email⟧",
    '{"customer": {"name": "⟦name_es⟧", "email": "⟦email⟧", "newsletter": true}}',
    "Mail an ⟦name_pl⟧ schicken (⟦email⟧) wegen der Rückerstattung.",
    "[signup] new account created for ⟦email⟧ from 185.22.14.9",
    "Hi! Ik ben ⟦name_nl⟧, je kunt me mailen op ⟦email⟧ voor de bezichtiging.",
    "Per favore inoltra la fattura a ⟦name_it⟧, all'indirizzo ⟦email⟧.",
    "recipient: ⟦email⟧ | status: bounced (mailbox full)",
    "Student contact sheet — ⟦name_se⟧: ⟦email⟧",
    "⟦sex_m⟧O ⟦name_br⟧ pediu para mandar o comprovante no e-mail pessoal dele: ⟦email⟧",
    # ---- phone numbers (national and international, many countries) ---------------------------
    "Call me back on ⟦phone_us⟧ after 5, I'm in meetings until then.",
    "Emergency contact for the trip: ⟦name_us⟧, ⟦phone_us_i⟧",
    "⟦sex_m⟧Plumber said he'd text from ⟦phone_ca⟧ — that's ⟦name_ca⟧, the guy who fixed the boiler.",
    "mob: ⟦phone_uk⟧ (⟦name_uk⟧, landlord)",
    "If the courier can't find the flat, ring ⟦phone_uk_i⟧.",
    "Meine Handynummer: ⟦phone_de⟧ – ruf einfach an, wenn du am Bahnhof bist.",
    "Rückruf erbeten: ⟦name_de⟧, Tel. ⟦phone_de_land⟧",
    "Kontakt Vermieterin ⟦name_de⟧: ⟦phone_de_i⟧",
    "Tu peux joindre ma sœur au ⟦phone_fr⟧, elle garde les clés.",
    "⟦sex_f⟧Mme ⟦name_fr⟧ — portable ⟦phone_fr_i⟧ — rappeler pour le devis",
    "⟦sex_f⟧El móvil de ⟦name_es⟧ es el ⟦phone_es⟧, llámala para lo del piso.",
    "Contacto en Madrid: ⟦phone_es_i⟧ (WhatsApp)",
    "⟦sex_m⟧Il numero di ⟦name_it⟧ è ⟦phone_it⟧, chiamalo per il ritiro del divano.",
    "Telefono cliente: ⟦phone_it_i⟧",
    "Bel me even op ⟦phone_nl⟧, dan regelen we de sleuteloverdracht.",
    "Noodnummer oppas: ⟦phone_be⟧ (⟦name_be⟧)",
    "Handy Frau Weber: ⟦phone_ch⟧",
    "Erreichbar unter ⟦phone_at_i⟧ ab Montag.",
    "⟦sex_f⟧Klucze do piwnicy ma sąsiadka, ⟦name_pl⟧, tel. ⟦phone_pl⟧.",
    "Ring ⟦name_se⟧ på ⟦phone_se⟧ om du blir sen.",
    "Mobilnummeret til ⟦name_no⟧ er ⟦phone_no⟧",
    "Du kan ringe til mig på ⟦phone_dk_i⟧",
    "Soita ⟦phone_fi⟧ jos paketti ei mahdu postilaatikkoon.",
    "Text ⟦first_uk⟧ on ⟦phone_ie⟧ when you land in Dublin.",
    "O meu número novo é ⟦phone_pt⟧",
    "Κινητό ⟦name_gr⟧: ⟦phone_gr_i⟧",
    "Мой новый номер: ⟦phone_ru⟧, старый больше не работает.",
    "Kurye için numaram ⟦phone_tr⟧, kapıda arasın.",
    "Driver's number is ⟦phone_in⟧ — ⟦name_in⟧ will pick you up at T3.",
    "WhatsApp me at ⟦phone_in_i⟧ for the rental agreement.",
    "王经理的手机：⟦phone_cn⟧",
    "有问题请联系我 ⟦phone_cn_i⟧（⟦name_cn⟧）",
    "携帯番号は ⟦phone_jp⟧ です。不在の場合は留守電にお願いします。",
    "Hotel contact for Kenji: ⟦phone_jp_i⟧",
    "제 번호는 ⟦phone_kr⟧ 입니다. 문자 주세요.",
    "Meu celular: ⟦phone_br⟧ — pode mandar mensagem a qualquer hora.",
    "Contato da diarista (⟦name_br⟧): ⟦phone_br_i⟧",
    "Márcame al ⟦phone_mx⟧ cuando llegues a la colonia.",
    "El celu de ⟦name_ar⟧ es ⟦phone_ar⟧",
    "Mi número en Chile es ⟦phone_cl_i⟧",
    "Llama a ⟦name_mx⟧ al ⟦phone_co_i⟧ para coordinar la entrega en Medellín.",
    "Mum's new mobile: ⟦phone_au⟧",
    "Contact for the bach: ⟦name_nz⟧ ⟦phone_nz_i⟧",
    "Tenant ⟦name_za⟧ can be reached on ⟦phone_za⟧.",
    "Please call the patient's daughter on ⟦phone_ng_i⟧ before discharge.",
    "رقم جوالي ⟦phone_sa⟧ تواصل معي على الواتساب",
    "⟦sex_m⟧رقم هاتف الأستاذ ⟦name_sa⟧: ⟦phone_ae_i⟧",
    "המספר שלי ⟦phone_il⟧, תתקשר כשאתה למטה",
    "Agent ⟦name_sg⟧ can be reached at ⟦phone_sg⟧.",
    "HK contact: ⟦phone_hk_i⟧ (Mr Chan, the landlord)",
    "Nomor WA saya ⟦phone_id⟧",
    "Số điện thoại của ⟦name_vn⟧ là ⟦phone_vn⟧",
    "Contact number of the applicant: ⟦phone_ph_i⟧",
    "Az új számom: ⟦phone_hu_i⟧",
    "Moje číslo je ⟦phone_cz⟧, napiš mi SMS.",
    "⟦sex_f⟧Kontaktný telefón pani ⟦name_cz⟧: ⟦phone_cz_i⟧",
    "Rufnummer des Hausarztes der Patientin steht im Bogen; ihre eigene: ⟦phone_de⟧",
    'name,phone,consent\n⟦name_us⟧,"⟦phone_us_i⟧",sms-yes',
    "رقم هاتف المريضة: ⟦phone_eg⟧",
    # ---- more phones: international format for countries above, national for others ----------
    "BEGIN:VCARD\nVERSION:3.0\nFN:⟦name_au⟧\nTEL;TYPE=cell:⟦phone_au_i⟧\nEND:VCARD",
    "Getuige bij de notaris: ⟦name_be⟧, gsm ⟦phone_be_i⟧",
    "Reached the homeowner at ⟦phone_ca_i⟧; she confirmed the Tuesday install window.",
    "Kontakt für die Schlüsselübergabe in Basel: ⟦name_de⟧, ⟦phone_ch_i⟧",
    "Tour guide ⟦name_uk⟧ — Irish mobile ⟦phone_ie_i⟧, only on WhatsApp.",
    "[sms-gateway] delivered OTP to ⟦phone_il_i⟧ status=ok",
    "예약자: ⟦name_kr⟧ / 연락처 ⟦phone_kr_i⟧",
    "⟦sex_m⟧Cliente ⟦name_mx⟧ pidió que lo llamen al ⟦phone_mx_i⟧ después de las 6.",
    "⟦sex_m⟧Vraag naar ⟦first_nl⟧, mobiel ⟦phone_nl_i⟧ — hij woont op de bovenste verdieping.",
    "Hytteutleier: ⟦name_no⟧, tlf. ⟦phone_no_i⟧",
    "⟦sex_f⟧Kontakt do opiekunki: ⟦phone_pl_i⟧ (⟦name_pl⟧)",
    "⟦sex_f⟧Telemóvel da senhoria, ⟦name_pt⟧: ⟦phone_pt_i⟧",
    "Ring mig på ⟦phone_se_i⟧ när du är framme i Göteborg.",
    "Condo agent ⟦name_sg⟧ — ⟦phone_sg_i⟧ (call after 7pm)",
    "Servis randevusu için müşteri telefonu: ⟦phone_tr_i⟧",
    "Guest house host ⟦name_za⟧, cell ⟦phone_za_i⟧",
    "Para la mudanza, el flete es de ⟦name_ar⟧: ⟦phone_ar_i⟧",
    "Puhelinnumeroni vaihtui: ⟦phone_fi_i⟧",
    "Hubungi Pak Budi di ⟦phone_id_i⟧ untuk penjemputan di bandara.",
    "⟦sex_m⟧Anh ⟦name_vn⟧ đổi số rồi: ⟦phone_vn_i⟧",
    "للتواصل مع ⟦name_sa⟧: ⟦phone_sa_i⟧",
    "Handynummer der Nachbarin in Graz: ⟦phone_at⟧",
    "Min mobil er ⟦phone_dk⟧, skriv hvis døren er låst.",
    "⟦sex_f⟧Το κινητό της ⟦name_gr⟧ είναι ⟦phone_gr⟧",
    "Mi número en Santiago: ⟦phone_cl⟧",
    "Escríbale a ⟦name_mx⟧ al ⟦phone_co⟧ para la cita en Bogotá.",
    "Landlord in Auckland: ⟦name_nz⟧ ⟦phone_nz⟧",
    "Hívd fel ⟦name_hu⟧-t a ⟦phone_hu⟧ számon.",
    "His wife's number is ⟦phone_ng⟧ in case he misses the appointment.",
    "contact_name,contact_phone\n⟦name_uk⟧,⟦phone_uk_land⟧",
    "HK landlord ⟦name_sg⟧: ⟦phone_hk⟧",
    # ---- more passports, licences, cards, IBANs -----------------------------------------------
    "Frequent-flyer profile of ⟦name_au⟧: Australian passport ⟦au_passport⟧, expiry 2032.",
    "Passaporto n. ⟦it_passport⟧ rilasciato dalla Questura di Milano a ⟦name_it⟧.",
    "여권번호 ⟦kr_passport⟧ (⟦name_kr⟧), 출국일 3월 2일",
    "Pasaporte mexicano ⟦mx_passport⟧ de ⟦name_mx⟧, vigente hasta 2033.",
    "Paspoortnummer ⟦nl_passport⟧ van ⟦name_nl⟧, nodig voor de inschrijving bij de gemeente.",
    "Texas DL ⟦tx_dl⟧ — ⟦name_us⟧, for the apartment application.",
    "Numéro de permis de conduire de ⟦name_fr⟧ : ⟦fr_permis⟧",
    "Card for the subscription: ⟦card_mc⟧, exp ⟦exp⟧, CVC ⟦cvv⟧ — ⟦name_uk⟧ said it's fine to charge monthly.",
    "Amex Platinum ⟦card_amex⟧, CID ⟦cvv4⟧, cardholder ⟦name_us⟧",
    "Compte au Luxembourg pour le loyer : ⟦iban_lu⟧ (⟦name_fr⟧)",
    "IBAN za povrat depozita: ⟦iban_hr⟧",
    "Sąskaita grąžinimui: ⟦iban_lt⟧",
    "Salary account in Dubai: ⟦iban_ae⟧, ⟦name_in⟧",
    # ---- payment cards -----------------------------------------------------------------------
    "Card on file for ⟦name_us⟧: Visa ⟦card_visa⟧, exp ⟦exp⟧",
    "Use my Mastercard ⟦card_mc⟧ for the hotel deposit, expiry ⟦exp⟧.",
    "Amex ⟦card_amex⟧ — corporate card of ⟦name_uk⟧, for flights only",
    "payment_method: discover, number: ⟦card_discover⟧, holder: ⟦name_us⟧",
    "JCBカード番号: ⟦card_jcb⟧（有効期限 ⟦exp⟧）",
    "银联卡号 ⟦card_unionpay⟧，持卡人 ⟦name_cn⟧",
    "Meine Kreditkartennummer für die Buchung: ⟦card_visa⟧, gültig bis ⟦exp⟧",
    "Numéro de carte : ⟦card_mc⟧ – date d'expiration ⟦exp⟧",
    "order_id,card,name\nORD-2025-118233,⟦card_visa_plain⟧,⟦name_es⟧",
    "[billing] charge failed for card ⟦card_amex_plain⟧ (do_not_honor)",
    "Maestro ⟦card_maestro⟧ belongs to ⟦name_nl⟧; they asked us to remove it after the refund.",
    "Tarjeta de crédito del cliente: ⟦card_mc⟧",
    "Номер карты для перевода: ⟦card_visa⟧",
    "Kartu kredit saya ⟦card_jcb⟧",
    # ---- IBANs and bank accounts -------------------------------------------------------------
    "Bitte überweise die Kaution auf mein Konto: IBAN ⟦iban_de⟧, Kontoinhaber ⟦name_de⟧.",
    "RIB de ⟦name_fr⟧ pour le remboursement : IBAN ⟦iban_fr⟧ BIC BNPAFRPP",
    "Please pay the invoice to ⟦name_uk⟧, IBAN ⟦iban_gb⟧",
    "Mi IBAN para que me devuelvas lo de la cena: ⟦iban_es⟧",
    "IBAN ⟦iban_it⟧ intestato a ⟦name_it⟧",
    "Rekeningnummer voor de huur: ⟦iban_nl⟧ t.n.v. ⟦name_nl⟧",
    "Verhuurder ⟦name_be⟧ — rekening ⟦iban_be⟧",
    "O IBAN da conta da minha mãe é ⟦iban_pt⟧",
    "Lohnkonto ⟦name_de⟧ (Zürich): ⟦iban_ch⟧",
    "Mein Gehaltskonto in Wien: ⟦iban_at⟧",
    "Mitt konto för återbetalningen: ⟦iban_se⟧",
    "Kontonummer for leie: ⟦iban_no⟧ (⟦name_no⟧)",
    "Overfør pengene til ⟦iban_dk⟧",
    "Tilinumero: ⟦iban_fi⟧, saaja ⟦name_fi⟧",
    "Refund to ⟦iban_ie⟧, account name ⟦name_uk⟧",
    "Numer konta do przelewu za mieszkanie: ⟦iban_pl⟧",
    "Číslo účtu (IBAN) pro vrácení zálohy: ⟦iban_cz⟧",
    "Contul meu: ⟦iban_ro⟧ (⟦name_ro⟧)",
    "Kira için IBAN: ⟦iban_tr⟧ – Alıcı: ⟦name_tr⟧",
    "supplier_payee,iban\n⟦name_gr⟧,⟦iban_gr⟧",
    "رقم الآيبان الخاص بي ⟦iban_sa⟧",
    "Beneficiary ⟦name_hu⟧, account ⟦iban_hu⟧",
    "Direct deposit: routing ⟦aba⟧, account ⟦us_acct⟧ (checking, ⟦name_us⟧)",
    "ACH details for ⟦name_us⟧ → ABA ⟦aba⟧ / acct #⟦us_acct⟧",
    "Bank details: sort code ⟦uk_sort⟧, account number ⟦uk_acct⟧, name ⟦name_uk⟧",
    "Please send the deposit to sort code ⟦uk_sort⟧ acc ⟦uk_acct⟧ — thanks!",
    "NEFT details: A/c no. ⟦in_acct⟧, IFSC ⟦ifsc⟧, beneficiary ⟦name_in⟧",
    "Canadian payroll: transit/institution ⟦ca_transit⟧, account ⟦ca_acct⟧ for ⟦name_ca⟧",
    "BSB ⟦au_bsb⟧ account ⟦au_acct⟧ — ⟦name_au⟧",
    "Mi CLABE para la transferencia: ⟦mx_clabe⟧",
    "Dados bancários: agência ⟦br_agencia⟧, conta corrente ⟦br_conta⟧, titular ⟦name_br⟧, CPF ⟦cpf⟧",
    # ---- government and official ids ----------------------------------------------------------
    "Form 1040 prep notes: taxpayer ⟦name_us⟧, SSN ⟦ssn⟧, filing jointly this year.",
    "Employee onboarding — ⟦name_us⟧, social security number ⟦ssn⟧, start date Monday, laptop already ordered.",
    '{"vendor": "⟦name_us⟧", "tin_type": "SSN", "tin": "⟦ssn⟧", "w9_received": true}',
    "Hi, I'm starting at the café next week and they asked for my National Insurance number — it's ⟦nino⟧, is that all they need?",
    "HMRC letter mentions my NI number ⟦nino⟧ — can you check whether the tax code on it is right?",
    "Referral for ⟦name_uk⟧ (NHS no. ⟦nhs⟧) to dermatology, routine, photos attached.",
    "Pour la mutuelle, voici le numéro de sécurité sociale de ⟦name_fr⟧ : ⟦nir⟧. La carte Vitale est à jour.",
    "Lohnbüro: bitte die Steuer-ID von ⟦name_de⟧ nachtragen – ⟦steuer_id⟧ – sonst gilt Steuerklasse 6.",
    "Für die Kontoeröffnung habe ich die Ausweisnummer ⟦de_ausweis⟧ (⟦name_de⟧) ins Formular übernommen.",
    "Die neue Versichertenkarte ist da, Krankenversichertennummer ⟦kvnr⟧ – bitte in der Praxis hinterlegen.",
    "Datos del inquilino: ⟦name_es⟧, DNI ⟦dni⟧, profesión enfermera, sin mascotas.",
    "Para el contrato de alquiler necesito los NIE de los dos: el mío es ⟦nie⟧, el tuyo mándamelo antes del viernes.",
    "Fatura em nome de ⟦name_pt⟧, contribuinte n.º ⟦pt_nif⟧, morada igual à do cartão.",
    "Mi serve il codice fiscale per la ricetta: ⟦codice_fiscale⟧ (⟦name_it⟧, intestatario della tessera sanitaria).",
    "Nieuwe medewerker ⟦name_nl⟧, BSN ⟦bsn⟧ — loonheffingsverklaring volgt morgen.",
    "Rijksregisternummer van de huurder: ⟦be_nn⟧ (zie kopie identiteitskaart in de map).",
    "Zgłoszenie do ZUS: ⟦name_pl⟧, numer PESEL ⟦pesel⟧, umowa od pierwszego.",
    "Ditt personnummer ⟦personnummer⟧ har registrerats hos vårdcentralen, välkommen på måndag.",
    "Skattemeldingen gjelder ⟦name_no⟧ med fødselsnummer ⟦fodselsnummer⟧.",
    "Tandlægen skal bruge dit CPR-nummer: ⟦cpr⟧ – står også på det gule kort.",
    "Potilaan henkilötunnus ⟦hetu⟧ (⟦name_fi⟧), ajanvaraus torstaina klo 9.",
    "Lepingu pooled: ⟦name_ee⟧, isikukood ⟦isikukood⟧, elukoht Tallinn.",
    "Pojišťovna chce rodné číslo dítěte: ⟦rodne_cislo⟧",
    "Pentru dosarul de la primărie: ⟦name_ro⟧, CNP ⟦cnp⟧, domiciliul în București.",
    "Kargo teslimatı için kimlik doğrulama: ⟦name_tr⟧, T.C. Kimlik No ⟦tckn⟧",
    "KYC done for ⟦name_in⟧ — Aadhaar ⟦aadhaar⟧, PAN ⟦pan⟧, both verified against the DigiLocker copy.",
    "My PAN is ⟦pan⟧, please quote it on the rent receipts so I can claim HRA.",
    "快递实名登记：⟦name_cn⟧，身份证号 ⟦cn_ric⟧",
    "年末調整の書類に私のマイナンバー（⟦my_number⟧）を書いておきました。",
    "보험 가입 정보: ⟦name_kr⟧, 주민등록번호 ⟦kr_rrn⟧",
    "⟦sex_f⟧Cadastro da cliente ⟦name_br⟧ no sistema: CPF ⟦cpf⟧, cliente desde 2019.",
    "⟦sex_f⟧A ⟦name_br⟧ é MEI — CNPJ ⟦cnpj⟧, CPF ⟦cpf⟧ — emitir a nota no nome dela.",
    "Para el trámite del IMSS: CURP ⟦curp⟧, ⟦name_mx⟧.",
    "Datos de facturación de ⟦name_mx⟧: RFC ⟦rfc⟧, régimen 612, uso CFDI G03.",
    "Alta en AFIP de ⟦name_ar⟧: DNI ⟦ar_dni⟧, CUIL ⟦cuil⟧",
    "Boleta a nombre de ⟦name_cl⟧, RUT ⟦rut⟧, por favor.",
    "For the T4 slip I need your SIN again — I have ⟦sin⟧ on file, ⟦first_ca⟧, is that right?",
    "New starter declaration: ⟦name_au⟧, tax file number ⟦tfn⟧, claiming the tax-free threshold.",
    "Medicare card number ⟦medicare⟧ for the GP booking — ⟦first_au⟧ is the second name on the card.",
    "KiwiSaver form: ⟦name_nz⟧, IRD number ⟦ird⟧.",
    "FICA documents received for ⟦name_za⟧ — ID number ⟦za_id⟧, proof of residence attached.",
    "מספר תעודת זהות של ⟦name_il⟧ לצורך החוזה: ⟦il_id⟧",
    "Tenancy application: ⟦name_sg⟧, NRIC ⟦nric⟧, employed at a logistics firm.",
    "AHV-Nummer von ⟦name_de⟧ für die Pensionskasse: ⟦ahv⟧",
    "Ραντεβού στον γιατρό για ⟦name_gr⟧, ΑΜΚΑ ⟦gr_amka⟧.",
    # ---- passports and driver's licences -------------------------------------------------------
    "Visa application draft — passport number ⟦us_passport⟧ (USA), issued 2021, expires 2031.",
    "Booking for ⟦name_uk⟧: passport ⟦uk_passport⟧, nationality GBR, needs the APIS data before check-in.",
    "Reisepassnummer für die Hotelanmeldung in Tokio: ⟦de_pass⟧ (⟦name_de⟧).",
    "Voyageur 2 : ⟦name_fr⟧, passeport n° ⟦fr_passport⟧, valable jusqu'en 2029.",
    "Passport number ⟦in_passport⟧ — ⟦name_in⟧ — for the Schengen appointment on the 12th.",
    "Traveller profile updated: Canadian passport ⟦ca_passport⟧ for ⟦name_ca⟧.",
    "航空券の予約に必要な旅券番号は ⟦jp_passport⟧ です（⟦name_jp⟧）。",
    "签证材料：护照号码 ⟦cn_passport⟧，⟦name_cn⟧",
    "Check-in online: pasajero ⟦name_es⟧, pasaporte ⟦es_passport⟧.",
    "⟦sex_f⟧Número do passaporte da ⟦name_br⟧: ⟦br_passport⟧ (vence em 2030).",
    "Rental car pickup: driver ⟦name_us⟧, California DL ⟦ca_dl⟧.",
    "The adjuster needs the other driver's info: ⟦name_us⟧, NY license ⟦ny_dl⟧.",
    "Scanned Florida driver license for the background check, number ⟦fl_dl⟧.",
    "DVLA check code requested for ⟦name_uk⟧, licence number ⟦uk_dl⟧.",
    "Ontario licence of the tenant's guarantor: ⟦on_dl⟧",
    "Ute rental form — ⟦name_au⟧, NSW licence no. ⟦nsw_dl⟧",
    "Driving licence for the cab driver ⟦name_in⟧: DL No. ⟦in_dl⟧",
    "Mietwagen: Fahrer ⟦name_de⟧, Führerscheinnummer ⟦de_fs⟧",
    # ---- street addresses (many countries) ------------------------------------------------------
    "Ship it to my place: ⟦addr_us⟧ — leave it with the neighbor if nobody answers.",
    "⟦name_us⟧\n⟦addr_us_nostreet⟧",
    "My new address is ⟦addr_uk⟧ from the 1st, please update the council tax account.",
    "Could you post the spare keys to mine? ⟦addr_uk_nostreet⟧",
    "Ab März wohne ich hier: ⟦addr_de⟧",
    "Adresse de livraison : ⟦name_fr⟧, ⟦addr_fr⟧ (digicode au rez-de-chaussée, sonner chez la gardienne)",
    "Os espero el sábado en casa: ⟦addr_es⟧",
    "Il pacco va consegnato a ⟦name_it⟧, ⟦addr_it⟧",
    "Ons nieuwe adres vanaf 1 juni: ⟦addr_nl⟧",
    "Adres do doręczeń dla sądu: ⟦name_pl⟧, ⟦addr_pl⟧",
    "Skicka paketet till ⟦name_se⟧, ⟦addr_se⟧",
    "お届け先：⟦addr_jp⟧ ⟦name_jp⟧ 様",
    "택배 주소: ⟦addr_kr⟧, ⟦name_kr⟧",
    "Endereço para entrega da geladeira: ⟦addr_br⟧",
    "Mi domicilio para las notificaciones del SAT: ⟦addr_mx⟧",
    "Address for the courier: ⟦name_in⟧, ⟦addr_in⟧",
    "收货地址：⟦addr_cn⟧ ⟦name_cn⟧ 收",
    "Адрес доставки: ⟦addr_ru⟧, получатель ⟦name_ru⟧",
    "Mailing address for the cheque: ⟦addr_ca⟧",
    "Our home address for the school enrolment: ⟦addr_au⟧",
    "Post the signed lease to ⟦addr_nz⟧",
    "Ev adresim: ⟦addr_tr⟧, zil çalışmıyor, telefonla haber verin.",
    "Morada fiscal atualizada: ⟦addr_pt⟧",
    "Send the forms to ⟦name_uk⟧, ⟦addr_ie⟧",
    "Neue Wohnadresse für die Krankenkasse: ⟦addr_ch⟧",
    "Hauptwohnsitz laut Meldezettel: ⟦addr_at⟧",
    "Διεύθυνση κατοικίας του μισθωτή: ⟦addr_gr⟧",
    "Jeg er flyttet – ny adresse: ⟦addr_dk⟧",
    "Proof of residence for FICA: ⟦addr_za⟧",
    "Mandá el paquete a ⟦addr_ar⟧, a nombre de ⟦name_ar⟧.",
    "العنوان الوطني للعميل: ⟦addr_sa⟧",
    # ---- date of birth + name + id -------------------------------------------------------------
    "Patient: ⟦name_us⟧, DOB ⟦dob_us⟧, SSN ⟦ssn⟧",
    "Name: ⟦name_uk⟧ / Date of birth: ⟦dob_long⟧ / NINO: ⟦nino⟧",
    "⟦name_de⟧, geb. ⟦dob_dot⟧, Steuer-ID ⟦steuer_id⟧",
    "⟦name_fr⟧, né(e) le ⟦dob_eu⟧, NIR ⟦nir⟧",
    "⟦name_it⟧ – nato/a il ⟦dob_eu⟧ – C.F. ⟦codice_fiscale⟧",
    "⟦name_pl⟧, ur. ⟦dob_dot⟧, PESEL ⟦pesel⟧",
    "氏名 ⟦name_jp⟧　生年月日 ⟦dob_jp⟧　マイナンバー ⟦my_number⟧",
    "⟦name_se⟧ (född ⟦dob_iso⟧), personnummer ⟦personnummer⟧",
    "Paciente ⟦name_mx⟧, fecha de nacimiento ⟦dob_eu⟧, CURP ⟦curp⟧",
    "⟦name_kr⟧ / 생년월일 ⟦dob_iso⟧ / 주민번호 ⟦kr_rrn⟧",
]


BOTH = [
    "Welcome aboard, ⟦name_us⟧! Your account is ⟦email⟧ and your temporary password is ⟦pw⟧ — you'll be asked to change it at first login.",
    "Mum's debit card in case you need to pay at the pharmacy: ⟦card_visa⟧, PIN ⟦pin4⟧.",
    "Airbnb check-in: the flat is at ⟦addr_fr⟧, the key box code is ⟦pin4⟧. Enjoy your stay!",
    "For the house-sitter: we live at ⟦addr_uk⟧, alarm code ⟦pin4⟧, wifi password ⟦pw_word⟧.",
    "If I lose my phone again: my Gmail is ⟦email⟧ and the password is ⟦pw⟧.",
    "Online-Banking: IBAN ⟦iban_de⟧, Anmeldename 4471223, PIN ⟦pin6⟧ – nur für den Notfall, ⟦first_de⟧!",
    "Compte ameli de ⟦name_fr⟧ : n° de sécu ⟦nir⟧, mot de passe ⟦pw⟧",
    "Cl@ve de mi padre para la renta: DNI ⟦dni⟧, contraseña ⟦pw⟧",
    "⟦sex_f⟧gov.br da ⟦name_br⟧: CPF ⟦cpf⟧ / senha ⟦pw⟧",
    "⟦sex_f⟧Profil zaufany babci: PESEL ⟦pesel⟧, hasło ⟦pw⟧",
    "e-Devlet girişi için: TC ⟦tckn⟧, şifre ⟦pw⟧",
    "Госуслуги мамы: телефон ⟦phone_ru_i⟧, пароль ⟦pw⟧",
    "공인인증서 비밀번호 ⟦pw⟧ / 휴대폰 ⟦phone_kr⟧ (엄마 명의)",
    "住所は ⟦addr_jp⟧、オートロックの暗証番号は ⟦pin4⟧ です。",
    "UPI for dad's account: phone ⟦phone_in_i⟧, UPI PIN ⟦pin6⟧ — Aadhaar ⟦aadhaar⟧ linked.",
    "HR portal reset for ⟦name_us⟧ (SSN ⟦ssn⟧): temp password ⟦pw_rand⟧, expires in 24h.",
    "[2025-04-02 11:03:19] stripe.Customer.create email=⟦email⟧ api_key=⟦stripe_sk⟧ -> 200",
    "Shared Netflix: ⟦email⟧ / ⟦pw_leet⟧ (it's ⟦name_nl⟧'s account, don't change the profiles)",
    "⟦sex_f⟧On-call DBA is ⟦name_uk⟧ (⟦phone_uk⟧). If she doesn't answer: psql postgres://dba:⟦pw_url⟧@db-prod-01.internal:5432/postgres",
    "⟦sex_f⟧Tenant file ⟦name_es⟧: IBAN ⟦iban_es⟧, el código del portal es ⟦pin4⟧ y la llave del buzón está en conserjería.",
]

BENIGN = [
    # ---- UUIDs, ULIDs, request/trace ids ---------------------------------------------------------
    "2025-03-14T09:12:44.118Z INFO request_id=⟦uuid⟧ method=GET path=/v1/orders status=200 dur=41ms",
    "Created workspace ⟦uuid⟧ — you can share this id with support, it is not secret.",
    '{"id": "⟦ulid⟧", "type": "note.created", "created_at": "2025-01-08T12:00:00Z"}',
    "ULIDs sort lexicographically by time, e.g. ⟦ulid⟧ was minted a few ms before ⟦ulid__2⟧.",
    "traceparent: 00-⟦trace_id⟧-⟦span_id⟧-01",
    "Kubernetes assigned uid ⟦k8s_uid⟧ to the pod payments-api-7c9f8d6b5-x2lqk.",
    "Die Vorgangsnummer Ihrer Anfrage lautet ⟦uuid⟧. Bitte geben Sie sie bei Rückfragen an.",
    "Stripe request id ⟦req_id⟧ — the charge failed with card_declined, no retry.",
    'correlation-id: ⟦uuid⟧ | tenant: acme-eu | level: warn | msg: "slow query (1.8s)"',
    "Votre identifiant de dossier est ⟦uuid⟧ (à communiquer au service client).",
    "SELECT * FROM sessions WHERE id = '⟦uuid⟧'; -- 0 rows, expired yesterday",
    "x-amz-request-id: ⟦span_id⟧ x-amz-id-2: ⟦b64_32⟧",
    # ---- hashes shown as hashes ------------------------------------------------------------------
    "MD5 (ubuntu-24.04-live-server-amd64.iso) = ⟦md5⟧",
    "sha256sum: ⟦sha256⟧  terraform_1.9.2_linux_amd64.zip",
    "The leaked-password check sends only the first five characters of the SHA-1 (e.g. ⟦sha1⟧ → prefix sent to the API), never the password.",
    "users table sample after migration (hash column only): ⟦bcrypt⟧",
    "Argon2id hash format for reference: ⟦argon2⟧ — parameters m=64MiB, t=3, p=4.",
    'integrity="⟦sha256_b64⟧" crossorigin="anonymous"',
    "Checksum mismatch: expected ⟦sha256⟧, got ⟦sha256__2⟧. Re-download the artifact.",
    "SHA-512 of the release tarball: ⟦sha512⟧",
    "Der Hash der Datei ist ⟦md5⟧ – bitte vergleichen, bevor ihr sie öffnet.",
    "image: ghcr.io/northwind/api@⟦docker_digest⟧",
    'ETag: "⟦md5⟧"',
    "Le mot de passe n'est jamais stocké en clair : on garde seulement l'empreinte bcrypt, par exemple ⟦bcrypt⟧.",
    "content hash ⟦sha1⟧ already in cache, skipping upload",
    "ハッシュ値（SHA-256）: ⟦sha256⟧",
    # ---- commit SHAs -----------------------------------------------------------------------------
    "Reverted ⟦git_sha⟧ because it broke the arm64 build.",
    "commit ⟦git_sha⟧\nAuthor: release-bot\nDate:   Tue Mar 4 10:22:01 2025 +0000\n\n    chore: bump deps",
    "Fixed in ⟦short_sha⟧, will ship in the next patch release.",
    "git cherry-pick ⟦git_sha⟧ ⟦git_sha__2⟧",
    'Bisect says the regression starts at ⟦short_sha⟧ ("refactor cache keys").',
    "El despliegue de producción apunta al commit ⟦git_sha⟧.",
    "pinned action: actions/checkout@⟦git_sha⟧ # v4.1.7",
    "Merged PR #4471 as ⟦short_sha⟧ into main.",
    # ---- base64 of harmless JSON ------------------------------------------------------------------
    "The pagination cursor is just base64 JSON: ⟦b64_json⟧ — decode it and you'll see the sort order.",
    "Cookie: prefs=⟦b64_json⟧ (UI preferences only, no auth)",
    "state=⟦b64_json⟧ is the opaque blob we round-trip through the analytics redirect.",
    "Base64 decode ⟦b64_json⟧ and you get the widget config, nothing sensitive.",
    "data:application/json;base64,⟦b64_json⟧",
    # ---- placeholders / documentation examples per provider --------------------------------------
    "AWS docs use AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as the example access key pair.",
    "[default]\naws_access_key_id = YOUR_ACCESS_KEY_ID\naws_secret_access_key = YOUR_SECRET_ACCESS_KEY",
    "Set GOOGLE_API_KEY=<your-api-key> before running the geocoding sample; keys start with AIza.",
    'Replace the placeholder in key.json ("private_key": "-----BEGIN PRIVATE KEY-----\\n...\\n-----END PRIVATE KEY-----\\n") with the file you download from the console.',
    "AccountKey=<storage-account-key> goes into the connection string; never commit the real one.",
    "SAS example from the docs: ?sv=2022-11-02&ss=b&sp=r&se=<expiry>&sig=<signature>",
    "export DIGITALOCEAN_TOKEN=dop_v1_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "阿里云示例：AccessKey ID 形如 LTAI****************，请替换为您自己的密钥。",
    "CLOUDFLARE_API_TOKEN=your_cloudflare_api_token_here",
    "Generate a classic token (it will look like ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx) and store it as a repository secret.",
    "gh auth login --with-token < mytoken.txt  # the file holds your token, not this README",
    "GITLAB_TOKEN=glpat-XXXXXXXXXXXXXXXXXXXX  # replace with a project access token",
    "Bitbucket: create an app password under Personal settings → App passwords; it is shown only once.",
    "SLACK_BOT_TOKEN=xoxb-your-bot-token\nSLACK_APP_TOKEN=xapp-your-app-token",
    "Incoming webhook URL format: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    'client.run(os.environ["DISCORD_TOKEN"])  # never paste the token in code',
    "Discord webhook URLs look like https://discord.com/api/webhooks/{webhook.id}/{webhook.token}.",
    'bot = telebot.TeleBot("<YOUR_TELEGRAM_BOT_TOKEN>")',
    "Stripe's API reference uses the published test-mode key sk_test_4eC39HqLyjWDarjtT1zdp7dc in every snippet; it only works against test mode and moves no money.",
    "In test mode, webhook signing secrets begin with whsec_ — copy yours from the CLI output of `stripe listen`.",
    "TWILIO_ACCOUNT_SID=ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nTWILIO_AUTH_TOKEN=your_auth_token",
    "sg = SendGridAPIClient(os.environ.get('SENDGRID_API_KEY'))",
    "MAILGUN_API_KEY=key-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (placeholder)",
    "Mailchimp keys end with the data-center suffix, e.g. <key>-us21; the suffix tells you which API host to call.",
    "OPENAI_API_KEY=sk-...  # put your key in .env, never in the notebook",
    "client = anthropic.Anthropic()  # reads ANTHROPIC_API_KEY from the environment",
    "Anthropic keys have the form sk-ant-api03-…; this page shows them redacted as sk-ant-api03-****.",
    "huggingface-cli login  # paste your hf_... token when prompted",
    "export REPLICATE_API_TOKEN=r8_******************************",
    "COHERE_API_KEY=<cohere key>\nGROQ_API_KEY=<groq key>",
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    "[pypi]\nusername = __token__\npassword = pypi-<your token>",
    'echo "$DOCKERHUB_TOKEN" | docker login -u "$DOCKERHUB_USER" --password-stdin',
    "Shopify Admin API tokens start with shpat_ — store them in the app's secret manager, not the theme.",
    'JIRA_API_TOKEN="<generate at id.atlassian.com>"',
    "NOTION_TOKEN=secret_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "LINEAR_API_KEY=lin_api_**** (redacted in logs)",
    "FIGMA_TOKEN=figd_your_token_here",
    "vercel deploy --token $VERCEL_TOKEN",
    "NETLIFY_AUTH_TOKEN: ${{ secrets.NETLIFY_AUTH_TOKEN }}",
    "heroku config:set API_KEY=$(cat /run/secrets/api_key)",
    "datadog:\n  apiKeyExistingSecret: datadog-secret\n  site: datadoghq.eu",
    "license_key: <%= ENV['NEW_RELIC_LICENSE_KEY'] %>",
    "Sentry.init({ dsn: process.env.SENTRY_DSN })",
    "The DSN format is https://<key>@o<org-id>.ingest.sentry.io/<project-id>; the docs sample uses examplePublicKey.",
    "doppler run -- npm start  # secrets are injected at runtime",
    "vault kv get -field=password secret/data/prod/postgres",
    'token = "<TFC_TEAM_TOKEN>"',
    "OKTA_API_TOKEN=00XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "AUTH0_CLIENT_SECRET=YOUR_CLIENT_SECRET",
    "FIREBASE_SERVER_KEY=AAAA...:APA91b... (truncated, see the console)",
    "SUPABASE_SERVICE_ROLE_KEY=<service role key — server only>",
    "SQUARE_ACCESS_TOKEN=EAAAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx (sandbox placeholder)",
    "PayPal sandbox: set PAYPAL_CLIENT_ID and PAYPAL_CLIENT_SECRET from the Developer Dashboard; the sample app ships with empty values.",
    "PLAID_ENV=sandbox\nPLAID_SECRET=\nPLAID_CLIENT_ID=",
    "ALGOLIA_ADMIN_KEY=**redacted**",
    "MAPBOX_ACCESS_TOKEN=pk.your_public_token_here",
    "-----BEGIN OPENSSH PRIVATE KEY-----\n<paste your key here>\n-----END OPENSSH PRIVATE KEY-----",
    "[Interface]\nPrivateKey = <client private key>\nAddress = 10.0.0.2/24",
    'BIP-39 test vector: the all-zero entropy gives "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about" — used in every wallet library\'s unit tests.',
    "The jwt.io debugger's sample token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c is signed with 'your-256-bit-secret' and is shown on the home page.",
    "Authorization: Bearer <access_token>",
    "DATABASE_URL=postgres://user:password@localhost:5432/mydb  # default from the tutorial",
    "mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/?retryWrites=true",
    "jdbc:mysql://localhost:3306/test?user=${DB_USER}&password=${DB_PASSWORD}",
    "REDIS_URL=redis://localhost:6379/0",
    "amqp://guest:guest@localhost:5672/ is RabbitMQ's built-in local-only default; the guest user cannot log in remotely.",
    "Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword;",
    # ---- .env.example files ----------------------------------------------------------------------
    "# .env.example — copy to .env and fill in\nDATABASE_URL=\nSTRIPE_SECRET_KEY=sk_test_changeme\nSENTRY_DSN=\nJWT_SECRET=changeme",
    "# .env.sample\nAPP_KEY=base64:generate-with-artisan\nDB_PASSWORD=secret\nMAIL_PASSWORD=null",
    "POSTGRES_PASSWORD=changeme  # local docker only, see .env.example",
    "# Example configuration\nAPI_KEY=your-api-key\nAPI_SECRET=your-api-secret\nWEBHOOK_URL=https://example.com/hook",
    "Beispiel-Konfiguration (.env.example):\nSMTP_USER=<benutzer>\nSMTP_PASS=<passwort>",
    # ---- code reading secrets from env / vault / KMS ----------------------------------------------
    'api_key = os.environ["OPENAI_API_KEY"]',
    "const stripe = require('stripe')(process.env.STRIPE_SECRET_KEY);",
    'password := os.Getenv("DB_PASSWORD")\nif password == "" { log.Fatal("DB_PASSWORD not set") }',
    "secret = boto3.client('secretsmanager').get_secret_value(SecretId='prod/orders/db')['SecretString']",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: orders-db\n        key: password",
    "- name: Deploy\n  env:\n    AWS_ACCESS_KEY_ID: ${{ secrets.AWS_ACCESS_KEY_ID }}\n    AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}",
    "plaintext = kms.decrypt(CiphertextBlob=base64.b64decode(blob))['Plaintext']",
    '@Value("${spring.datasource.password}") private String dbPassword;',
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}',
    "$token = Get-Secret -Name GitHubToken -Vault LocalStore -AsPlainText",
    "gcloud secrets versions access latest --secret=smtp-password",
    'let key = std::env::var("ANTHROPIC_API_KEY").expect("set ANTHROPIC_API_KEY");',
    # ---- password policies, rotation statements (many languages) -----------------------------------
    "Password policy: at least 12 characters, one digit, one symbol, no reuse of the last 5 passwords, rotation every 180 days.",
    "Le mot de passe doit contenir au moins 12 caractères, dont une majuscule, un chiffre et un caractère spécial.",
    "Passwortrichtlinie: mindestens 14 Zeichen, keine Wörter aus dem Wörterbuch, Wechsel nur bei Verdacht auf Kompromittierung.",
    "La contraseña debe tener entre 8 y 64 caracteres y no puede contener tu nombre de usuario.",
    "パスワードは8文字以上で、英大文字・英小文字・数字をそれぞれ1文字以上含めてください。",
    "비밀번호는 영문, 숫자, 특수문자를 조합하여 10자 이상으로 설정해 주세요.",
    "Hasło musi mieć co najmniej 10 znaków i nie może być takie samo jak trzy poprzednie.",
    "Пароль должен содержать не менее 8 символов, включая цифры и буквы разного регистра.",
    "I changed my bank password this morning after the phishing email — all good now.",
    "Rotated the Stripe key and the Slack webhook after the laptop was stolen; old ones are revoked.",
    "J'ai changé mon mot de passe Gmail hier soir, je te le dirai de vive voix.",
    "Hab mein Passwort fürs Intranet zurückgesetzt, die neue Mail mit dem Link kam sofort.",
    "Cambié la contraseña del wifi, ya te la paso en persona.",
    "Ho aggiornato la password della VPN, quella vecchia non funziona più.",
    "パスワードを変更しました。新しいパスワードは口頭で伝えます。",
    "Zmieniłem hasło do konta firmowego, nowe jest w menedżerze haseł.",
    "The AWS access key for the CI user was deactivated and deleted on 3 March; the new one lives only in Secrets Manager.",
    "Reminder: never paste API keys in Slack. If you did, tell #security and we'll rotate it.",
    "Forgot my password again, requested a reset link.",
    "Сменил пароль от почты, старый больше не подходит.",
    # ---- public keys, certificates, fingerprints ---------------------------------------------------
    "Add my public key to the bastion, please:\n⟦pubkey_ed⟧ laptop-2025",
    "authorized_keys on build-07:\n⟦pubkey_rsa⟧ ci-runner",
    "The host key fingerprint is ⟦fp_sha256⟧ (ED25519). Compare before you type yes.",
    "Certificate SHA-256 fingerprint: ⟦fp_colon⟧",
    "Our public certificate for the SAML metadata:\n⟦cert_pem⟧",
    "My PGP public key (fingerprint ⟦pgp_fpr⟧):\n⟦pgp_pub⟧",
    "JWKS public key for verifying our webhooks:\n⟦pub_pem⟧",
    "[Peer]\nPublicKey = ⟦wireguard_pub⟧\nEndpoint = vpn.office.example:51820\nAllowedIPs = 10.66.0.0/24",
    "Pin this SHA-1 thumbprint in the client: ⟦fp_sha1_colon⟧",
    "Le certificat racine a pour empreinte SHA-256 ⟦fp_colon⟧.",
    # ---- order / invoice / ticket / tracking / booking numbers --------------------------------------
    "Your order ⟦order_no⟧ has shipped! Track it with UPS: ⟦ups⟧",
    "Invoice ⟦invoice_no⟧ is due on 30 April, amount €⟦price⟧.",
    "FedEx tracking ⟦fedex⟧ shows 'delivery exception — weather'.",
    "USPS tracking number: ⟦usps⟧",
    "Ihre DHL-Sendungsnummer: ⟦dhl⟧",
    "Booking reference ⟦booking⟧ — flight LH 2031 MUC→CDG, seat 14C.",
    "Numéro de commande ⟦order_no⟧, facture ⟦invoice_no⟧ en pièce jointe.",
    "Ticket ⟦ticket_no⟧: customer reports the export button does nothing in Safari.",
    "Su número de pedido es ⟦order_no⟧. Recibirá un correo cuando salga del almacén.",
    "注文番号 ⟦order_no⟧ の発送が完了しました。",
    "Reservierungsnummer ⟦booking⟧ für zwei Nächte im Hotel am See.",
    "PO ⟦order_no⟧ approved by finance, vendor delivery in 6 weeks.",
    "Rückfragen bitte unter Angabe der Rechnungsnummer ⟦invoice_no⟧.",
    "Case ⟦ticket_no⟧ escalated to tier 2, SLA 8h.",
    # ---- product codes: ISBN, EAN, IMEI-like, ASIN, SKU --------------------------------------------
    "ISBN ⟦isbn⟧ — second edition, paperback.",
    "EAN ⟦ean⟧ scanned at checkout, price €⟦price⟧.",
    "Barcode on the shampoo bottle: ⟦ean⟧",
    "IMEI of the test handset in the lab rack (device, not a person): ⟦imei_like⟧",
    "ASIN ⟦asin⟧, SKU ⟦sku⟧, 14 units in stock.",
    "Numéro ISBN du manuel : ⟦isbn⟧",
    "Part number ⟦part_no⟧ replaces the discontinued bracket.",
    "Lot ⟦sku⟧ recalled — check the label on the back of the box.",
    # ---- phone-like timestamps, serials, counters ----------------------------------------------------
    "event ts=⟦unix_ms⟧ (epoch millis) user_agent=Mozilla/5.0",
    "Build ⟦unix_s⟧ finished in 12m04s.",
    "Serial number of the router: ⟦serial⟧",
    "Seriennummer des Zählers: ⟦serial⟧, Zählerstand 048213 kWh",
    "Meter reading 0412 338 901 kWh as of the 31st (it's the odometer-style counter, not a phone number).",
    "VIN-style chassis code ⟦vin_like⟧ printed on the pallet label.",
    "Job 20250314-0931-7781 completed; next run at 2025-03-15 09:31.",
    "Transaction count today: 1 204 557 (up 3%).",
    # ---- versions, IPs, MACs, coordinates, prices ---------------------------------------------------
    "Upgraded nginx to ⟦semver⟧ and the Go toolchain to 1.22.4.",
    "Released v⟦semver⟧ — changelog: faster cold starts, fixed the locale bug.",
    "Node ⟦semver⟧ has a regression with fetch keep-alive, pin to 20.11.1.",
    "The load balancer forwards to ⟦ipv4⟧ and ⟦ipv4__2⟧ on port 8443.",
    "Blocked ⟦ipv4⟧ after 400 failed logins in 5 minutes.",
    "IPv6 for the staging ingress: ⟦ipv6⟧",
    "DHCP lease: MAC ⟦mac⟧ → 192.168.1.37 (living-room TV)",
    "Die MAC-Adresse des Druckers ist ⟦mac⟧.",
    "The meetup is at the café near the station, coordinates ⟦lat⟧, ⟦lon⟧.",
    "Weather station coordinates: lat ⟦lat⟧ lon ⟦lon⟧, altitude 412 m.",
    "Total: $⟦price⟧ incl. tax. Thanks for shopping with us!",
    "Le devis s'élève à ⟦price⟧ € HT, livraison comprise.",
    "Precio final: ⟦price⟧ € (IVA incluido).",
    "合計金額は ⟦price⟧ ドルです。",
    # ---- SWIFT/BIC alone, company names, cities ------------------------------------------------------
    "The bank's SWIFT/BIC is ⟦swift⟧ — we still need the beneficiary's account before paying.",
    "BIC ⟦swift⟧ gehört zur Filiale in der Innenstadt.",
    "Le code BIC de la banque est ⟦swift⟧.",
    "Correspondent bank: ⟦swift⟧ (intermediary only).",
    "Northwind Traders GmbH, Hamburg — supplier since 2019, payment terms 30 days net.",
    "Our Lisbon office moved closer to the river; the Porto team stays where it is.",
    "Meeting with Acme Logistics in Rotterdam next Tuesday about the Q3 volumes.",
    "Called Maria from accounting about the budget — she'll send the spreadsheet tomorrow.",
    "Jean-Pierre, our head of sales, will present in Montréal.",
    "Dr. Tanaka is the new head of radiology at the Osaka clinic.",
    # ---- form labels without values -----------------------------------------------------------------
    "Please enter your passport number: ____________",
    "Card number | Expiry (MM/YY) | CVC\n[                ] [     ] [   ]",
    "IBAN: ______________________ BIC: ___________",
    "Numéro de sécurité sociale : ………………………… (à remplir par le salarié)",
    "Steuer-Identifikationsnummer: [ ] [ ] [ ] [ ] [ ] [ ] [ ] [ ] [ ] [ ] [ ]",
    "Teléfono: __________  Correo electrónico: __________",
    '<label for="ssn">Social Security Number</label>\n<input id="ssn" name="ssn" type="text" placeholder="XXX-XX-XXXX">',
    "Enter the 6-digit code from your authenticator app.",
    "Endereço residencial: ______________________  CEP: _________",
    "マイナンバー（12桁）を入力してください：",
    "주민등록번호 앞자리 6자리를 입력하세요.",
    "Adres zamieszkania: ____________  PESEL: ___________",
    "Please have your National Insurance number ready when you call.",
    "Укажите номер паспорта и дату выдачи.",
    'door_code: ""  # filled in by the host app on the day of arrival',
    # ---- published test cards in payment-testing docs -------------------------------------------------
    "Stripe test mode: use 4242 4242 4242 4242 with any future expiry and any CVC to simulate a successful payment.",
    "To trigger 3-D Secure in the sandbox, use the test card 4000 0025 0000 3155.",
    "Test cards (sandbox only): Mastercard 5555 5555 5555 4444, Amex 3782 822463 10005, Discover 6011 1111 1111 1117.",
    "Für Tests im Sandbox-Modus die Karte 4111 1111 1111 1111 verwenden – sie wird in der Produktion abgelehnt.",
    "JCB test card 3566 0020 2036 0505 and UnionPay 6200 0000 0000 0005 both succeed in test mode.",
    # ---- sample ids explicitly marked as examples in documentation ------------------------------------
    "Example IBAN used throughout the ECBS documentation: DE89 3704 0044 0532 0130 00.",
    "The UK example IBAN GB82 WEST 1234 5698 7654 32 appears in most validation libraries' tests.",
    "HMRC guidance uses QQ 12 34 56 C as the example National Insurance number; QQ is never issued.",
    "The codice fiscale RSSMRA85T10A562S is the classic 'Mario Rossi' example in every Italian tutorial.",
    "Fictional numbers for films: US phone numbers 555-0100 through 555-0199 are reserved for fiction.",
    "Ofcom reserves 07700 900000–900999 for drama, so scripts can show a mobile number safely.",
    "The SSA invalidated 078-05-1120, the number printed on the sample card in Woolworth wallets in 1938.",
    "In the docs we write the BSN as 123456782 — it passes the elfproef but is a reserved test value.",
    "Sample email for the form hint: name@example.com (example.com is reserved by IANA).",
    "Aadhaar numbers are shown masked in receipts, e.g. XXXX XXXX 4821, as the UIDAI guidelines require.",
    "Exemplo de CPF usado em documentação: 000.000.000-00 (inválido de propósito).",
    # ---- misc look-alikes -------------------------------------------------------------------------
    "Indian PIN code for the Indiranagar post office is 560038 — it's the postal code, not a secret.",
    "Room 2417, floor 24 — the conference room code on the booking system is B-24-17.",
    "Flight LX 318 departs 07:45 from gate A52; boarding closes 07:25.",
    "Bus 42 runs every 12 minutes between 06:00 and 23:40.",
    "Ran the benchmark 3 times: 1.42s, 1.39s, 1.47s.",
    "Our sprint velocity is 34 points; the Q2 target is 38.",
    "Meeting ID: 812 3344 9012 (Zoom webinar for the public launch)",
    "Conference dial-in PIN for the all-hands is on the public intranet page; it's the same for everyone.",
    "The lockers at the gym use your own 4-digit code; pick something you'll remember.",
    "Door codes are changed every month by facilities — ask reception for the current one.",
    "Our wifi for visitors is the open network 'Library-Guest', no password needed.",
    "The router ships with a random password printed on its label; change it during setup.",
    "Your verification code will expire in 10 minutes. Didn't request it? Ignore this message.",
    "Two-factor authentication is now mandatory for all admin accounts starting in June.",
    "Security review: the old Jenkins token was found in a log, rotated within the hour, no misuse in the audit trail.",
    "Tip: a passphrase of five random words is easier to remember than P@ssw0rd-style strings.",
    "Wir speichern keine Kartennummern; die Zahlungsdaten liegen ausschließlich beim Zahlungsdienstleister.",
    "Nous ne vous demanderons jamais votre mot de passe par téléphone ou par e-mail.",
    "Nunca compartas tu código de verificación con nadie, ni siquiera con nuestro equipo.",
    "Non condividere mai il PIN della carta: la banca non te lo chiederà mai.",
    "Nooit je pincode delen, ook niet met medewerkers van de bank.",
    "Nigdy nie podawaj kodu BLIK osobom trzecim.",
    "Никому не сообщайте код из СМС.",
    "Asla şifrenizi kimseyle paylaşmayın.",
    "绝不要把验证码告诉任何人，包括客服。",
    "비밀번호를 다른 사람과 공유하지 마세요.",
    "לעולם אל תמסרו את הסיסמה שלכם לאף אחד.",
    "لا تشارك رمز التحقق مع أي شخص.",
    "Kwartaalcijfers: omzet € 2,4 mln, marge 18%, 42 nieuwe klanten.",
    "Quartalsbericht: 1.204 Bestellungen, Retourenquote 4,2 %.",
    "Temperature log: 21.4 °C at 09:00, 23.1 °C at 13:00, 19.8 °C at 22:00.",
    "Postcode lookups by area only: SW1A, M1, EH1 — no house numbers stored.",
    "The Eiffel Tower is at Champ de Mars, 5 Avenue Anatole France, Paris — a landmark, not anyone's home.",
    "Tate Modern, Bankside, London SE1 9TG, is free to enter; special exhibitions are ticketed.",
    "The head office of Siemens is in Munich; the Erlangen campus hosts R&D.",
    "Regex for IBAN validation: ^[A-Z]{2}\\d{2}[A-Z0-9]{11,30}$",
    "def luhn_ok(number: str) -> bool:  # validates card-like numbers in tests\n    ...",
    "SSN format is AAA-GG-SSSS; area numbers 900–999 are never issued.",
    "A Spanish DNI has 8 digits and a check letter computed modulo 23.",
    "Aadhaar uses the Verhoeff checksum for its last digit.",
    "GitHub classic tokens are 40 characters: the ghp_ prefix, 30 random chars and a 6-char CRC32 checksum.",
    "Stripe secret keys start with sk_live_ in production and sk_test_ in test mode; publishable keys start with pk_.",
    "Secret scanning alert #42 was closed as 'revoked' — the token had already expired.",
    "grep -rE 'AKIA[0-9A-Z]{16}' . returned nothing, the repo is clean.",
    "trufflehog found 0 verified secrets in 1,204 commits.",
    "CSV header only: first_name,last_name,email,phone,iban,date_of_birth",
    '{"email": null, "phone": null, "address": null, "consent": false}',
    "Columns to mask in the export: ssn, card_number, iban, passport_no.",
    "Password reset tokens expire after 30 minutes and can be used once.",
    "JWT access tokens live 15 minutes; refresh tokens 30 days, rotated on use.",
    "We hash API keys with SHA-256 before storing them, so support cannot see them.",
    "Il codice PIN della carta arriva per posta separata, qualche giorno dopo la carta.",
    "Ihre neue PIN wird Ihnen in einem separaten Brief zugestellt.",
    "Recovery codes are shown once after enabling 2FA — print them and keep them offline.",
    "Seed phrases should be written on paper or steel; never type them into a website.",
    "Vault is sealed after every restart; three of five key holders must unseal it.",
    "Our KMS key alias is alias/orders-prod; the key material never leaves the HSM.",
    "The certificate for api.example.org expires on 2025-11-02; renewal is automated by cert-manager.",
    "user 'deploy' has read-only access to the monorepo via a deploy key (public half in the repo settings).",
    "Commit 3f9e1c0 removed the hard-coded password and replaced it with an env var.",
    "sudo passwd -l olduser  # lock the account, no password set",
    "Ablauf: Passwort vergessen → Link per Mail → neues Passwort wählen.",
    "Procédure : en cas de perte de la carte, faites opposition via le numéro vert affiché en agence ou dans l'application.",
    "The API rate limit is 600 requests per minute per key.",
    "HTTP 401 means the token is missing or expired; 403 means it lacks the scope.",
    "Tracking pixel id 1234567890123456 belongs to the marketing account, not a card.",
    "Luhn-valid numbers also appear in IMEIs and some loyalty cards, so a checksum alone proves nothing.",
    "Loyalty card barcode ⟦ean⟧ (store points only, no payment function).",
    "Gift card balance: €⟦price⟧; redeem online with the code printed under the scratch panel.",
    "Package weight 2.45 kg, dimensions 40 × 30 × 12 cm.",
    "The colour code for the brand blue is #1A73E8.",
    "Latitude/longitude of the office parking lot: ⟦lat⟧, ⟦lon⟧ (for the delivery app).",
    "Our support line opens at 8am CET; see the contact page for the number.",
    "To reach the on-call engineer, use the PagerDuty escalation, not personal phones.",
    "The customer asked us to delete their data; all records were erased on 2 May.",
    "GDPR request #⟦ticket_no⟧ fulfilled — export delivered through the secure portal.",
    "Please don't send me your password; I can reset the account from the admin console.",
    "I'll share the wifi password in person when you arrive.",
    "Die Zugangsdaten bekommst du per Post, nicht per Mail.",
    "The code for the meeting room display is reset daily and shown on the tablet outside.",
    "Chart version 4.12.1, app version ⟦semver⟧, kube 1.29.",
    "Node ID ⟦uuid⟧ joined the cluster; 3/3 healthy.",
    "Ticket price €⟦price⟧, seat row 14, gate opens at 18:30.",
    "Temperatura: 23 °C; humedad: 61 %; presión: 1013 hPa.",
    "Indice de réparabilité : 8,2/10 — pièce détachée réf. ⟦part_no⟧.",
    "出荷ロット番号：⟦sku⟧、製造日 2025-02-11",
    "Số đơn hàng của bạn là ⟦order_no⟧.",
    "Nomor resi pengiriman: ⟦dhl⟧",
    "Sipariş numaranız: ⟦order_no⟧",
    "Zamówienie ⟦order_no⟧ zostało wysłane.",
    "Номер заказа: ⟦order_no⟧, трек-номер ⟦dhl⟧.",
    "رقم الطلب: ⟦order_no⟧",
    "Bestelnummer ⟦order_no⟧ is onderweg.",
    "Beställningsnummer ⟦order_no⟧ har skickats.",
    "Numero d'ordine ⟦order_no⟧ in consegna domani.",
]


# ============================================================================================
# assembly
# ============================================================================================
GEN["sex_f"] = lambda c, k: (c.__setitem__("_sex", "F"), "")[1]
GEN["sex_m"] = lambda c, k: (c.__setitem__("_sex", "M"), "")[1]

_SLOT = re.compile(r"⟦([a-z0-9_]+)⟧")


def fill(template: str) -> str:
    ctx: dict = {}
    cache: dict = {}

    def sub(m: re.Match) -> str:
        key = m.group(1)
        if key in cache:
            return cache[key]
        base, _, n = key.partition("__")
        if base not in GEN:
            raise KeyError(f"no generator for {key!r} in {template[:60]!r}")
        # a numbered slot (x__2) is a different value, of a different person
        val = GEN[base]({} if n else ctx, base)
        if n:
            while val in cache.values():
                val = GEN[base]({}, base)
        cache[key] = val
        return val

    return _SLOT.sub(sub, template)


def build() -> list[dict]:
    groups = [
        (SECRET, ["secret"]),
        (PERSONAL, ["personal"]),
        (BOTH, ["personal", "secret"]),
        (BENIGN, []),
    ]
    seen_tpl: set = set()
    rows: list[dict] = []
    for templates, fams in groups:
        for tpl in templates:
            if tpl in seen_tpl:
                raise ValueError(f"duplicate template: {tpl[:80]!r}")
            seen_tpl.add(tpl)
            text = fill(tpl)
            assert "⟦" not in text and "⟧" not in text
            rows.append({"text": text, "families": sorted(fams)})
    texts = [r["text"] for r in rows]
    assert len(texts) == len(set(texts)), "duplicate text"
    R.shuffle(rows)
    return rows


def main() -> None:
    rows = build()
    with OUT.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    counts: dict = {}
    for r in rows:
        k = "+".join(r["families"]) or "benign"
        counts[k] = counts.get(k, 0) + 1
    print(f"wrote {len(rows)} rows to {OUT}")
    for k in sorted(counts):
        print(f"  {k:18s} {counts[k]}")


if __name__ == "__main__":
    main()
