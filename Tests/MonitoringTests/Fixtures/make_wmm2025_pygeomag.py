"""Writes wmm2025_pygeomag.txt: the WMM 2025 field from PyPI pygeomag 1.1.0 (its bundled
WMM_2025.COF) at 200 seeded random points, altitudes and dates in 2025.0-2030.0.

    python3 -m venv v && v/bin/pip install pygeomag==1.1.0 && v/bin/python make_wmm2025_pygeomag.py
"""
import random
from importlib.metadata import version
from pygeomag import GeoMag

assert version("pygeomag") == "1.1.0"
r = random.Random(2025)
gm = GeoMag(base_year=2025)
with open("wmm2025_pygeomag.txt", "w") as f:
    f.write("# pygeomag 1.1.0 GeoMag(base_year=2025).calculate(glat, glon, alt, time); seed 2025\n")
    f.write("# decimal_year altitude_km latitude longitude D_deg I_deg H_nT X_nT Y_nT Z_nT F_nT\n")
    for k in range(200):
        lat = r.uniform(-89.9, 89.9) if k % 10 else r.choice((-1, 1)) * r.uniform(80, 89.9)
        lon = r.uniform(-180, 180)
        alt = 0.0 if k % 3 == 0 else r.uniform(-1, 100)
        year = r.uniform(2025.0, 2030.0)
        m = gm.calculate(glat=lat, glon=lon, alt=alt, time=year, allow_date_outside_lifespan=False)
        f.write("%.9f %.6f %.9f %.9f %.9f %.9f %.6f %.6f %.6f %.6f %.6f\n"
                % (year, alt, lat, lon, m.d, m.i, m.h, m.x, m.y, m.z, m.f))
