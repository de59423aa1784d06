"""NormaSubtractor: truncated NORMA novelty detection (Kivinen, Smola, Williamson 2004) per pixel."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import silkvision as sv
from silkvision.config.schema import SCHEMA
from silkvision.detector.norma import RHO0, NormaSubtractor


def _frame(colour, h=4, w=5):
    return np.full((h, w, 3), colour, np.uint8)


def test_factory_and_config_keys():
    det = sv.create_subtractor("norma")
    assert isinstance(det, NormaSubtractor) and det.name == "norma" and det.has_scores
    p = det.get_params()
    for k, param in SCHEMA["detector"]["norma"].items():
        assert p[k] == param.default, k
    det = sv.create_subtractor("norma", **{"lambda": 0.2, "eta": 0.3})
    assert det.get_params()["lambda"] == 0.2 and det.lam == 0.2
    det.set_params(**{"lambda": 0.5})
    assert det.get_params()["lambda"] == 0.5
    setattr(det, "lambda", 0.25)  # the config key as an attribute is set_params too
    assert det.get_params()["lambda"] == 0.25 and det.lam == 0.25 and getattr(det, "lambda") == 0.25
    with pytest.raises(ValueError, match="lambda"):
        setattr(det, "lambda", -1.0)
    twin = NormaSubtractor(**det.get_params())  # get_params' keys are constructor keywords
    assert twin.get_params() == det.get_params()
    with pytest.raises(TypeError, match="'bogus'"):
        NormaSubtractor(bogus=1)
    with pytest.raises(ValueError, match="lam, lambda"):
        NormaSubtractor(lam=0.2, **{"lambda": 0.3})


def test_update_rules_rho_and_ring_buffer():
    eta, lam, nu = 0.25, 0.5, 0.25
    det = NormaSubtractor(omega=3, eta=eta, lam=lam, nu=nu, median=0, threshold=0.1)
    det.apply(_frame(10))
    st = det.get_state()
    np.testing.assert_allclose(st["rho"], RHO0 - eta * (1 - nu))  # f = 0 < rho: rho falls
    np.testing.assert_array_equal(st["ptr"], 1)
    np.testing.assert_allclose(st["alphas"][:, 0] * st["scale"], eta)  # new term eta
    # four novel colours: the ring keeps the LAST three (FIFO), whatever their coefficients
    for c in (60, 110, 160):
        det.apply(_frame(c))
    st = det.get_state()
    assert sorted(int(v) for v in st["colours"][0, :, 0, 0]) == [60, 110, 160]
    d = 1 - eta * lam
    np.testing.assert_allclose(
        np.sort(st["alphas"][0, :, 0] * st["scale"]), [eta * d * d, eta * d, eta], rtol=1e-6
    )


def test_rho_rises_when_inside_the_margin():
    det = NormaSubtractor(omega=20, eta=0.5, lam=0.1, nu=0.25, median=0)
    rhos = []
    for _ in range(12):
        det.apply(_frame(100))
        rhos.append(float(det.get_state()["rho"][0, 0]))
    steps = np.round(np.diff(rhos), 6)
    assert set(steps) == {-0.375, 0.125}  # -eta (1 - nu) when f < rho, +eta nu otherwise


def test_scores_mask_and_no_learning(sample_seq):
    files = sorted((sample_seq / "input").glob("*.jpg"))[:20]
    det = NormaSubtractor()
    for f in files:
        m = det.apply(cv2.imread(str(f)))
    np.testing.assert_array_equal(m, det.mask_from_scores(det.scores))
    lo, hi = det.score_range
    assert det.scores.min() >= lo and det.scores.max() <= hi == det.omega * det.eta
    before = det.get_state()
    det.apply(cv2.imread(str(files[0])), learningRate=0)
    assert det.frames_seen == 20
    for k, v in before.items():
        np.testing.assert_array_equal(det.get_state()[k], v, err_msg=k)


@pytest.mark.slow
def test_checkpoint_restore_is_bit_identical(sample_seq):
    files = sorted((sample_seq / "input").glob("*.jpg"))[:40]
    frames = [cv2.imread(str(f))[100:160] for f in files]
    ref = NormaSubtractor(eta=0.5, lam=1.5)  # decays fast: renormalises on the way
    want = [(ref.apply(f).copy(), ref.scores.copy()) for f in frames]
    det = NormaSubtractor(eta=0.5, lam=1.5)
    for f in frames[:25]:
        det.apply(f)
    resumed = NormaSubtractor(eta=0.5, lam=1.5)
    resumed.set_state(det.get_state())
    for f, (m, s) in zip(frames[25:], want[25:]):
        np.testing.assert_array_equal(resumed.apply(f), m)
        np.testing.assert_array_equal(resumed.scores, s)


@pytest.mark.parametrize(
    "kw,name",
    [
        (dict(eta=0), "eta"),
        (dict(lam=-1), "lambda"),
        (dict(eta=2.0, lam=0.5), r"eta \* lambda = 1\.0"),
        (dict(nu=1.5), "nu"),
        (dict(omega=0), "omega"),
        (dict(sigma=0), "sigma"),
        (dict(threshold=-1), "threshold"),
        (dict(colour_space="xyz"), "colour_space"),
    ],
)
def test_bad_parameters(kw, name):
    with pytest.raises(ValueError, match=name):
        NormaSubtractor(**kw)


def test_eta_lambda_product_error_names_the_config_key():
    """The GUI and YAML call it ``lambda``: the message must too, for both ways of setting it."""
    det = NormaSubtractor()
    with pytest.raises(
        ValueError,
        match=r"^eta, lambda: eta \* lambda = 5\.0 must be < 1 "
        r"\(eta=50\.0, lambda=0\.1\)$",
    ):
        det.set_params(eta=50.0)
    with pytest.raises(ValueError, match="lambda=19"):
        det.set_params(**{"lambda": 19.0, "eta": 0.1})
    assert det.get_params()["eta"] == 0.1 and det.get_params()["lambda"] == 0.1  # nothing changed


def test_restart_params_and_size_change():
    det = NormaSubtractor()
    det.apply(_frame(5))
    det.set_params(threshold=0.2, eta=0.2, nu=0.1, sigma=9.0, median=0)
    assert det.frames_seen == 1
    det.set_params(omega=4)
    assert det.frames_seen == 0
    det.apply(_frame(5))
    with pytest.raises(ValueError, match="5x4.*6x4"):
        det.apply(_frame(5, 4, 6))
    assert det.get_background_image().shape == (4, 5, 3)
