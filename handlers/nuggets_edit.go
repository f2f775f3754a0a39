package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/crucible-portal/crucible/pipeline"
	"github.com/crucible-portal/crucible/views"
)

// bankEdit runs an edit of the nugget bank of the report in the path and
// answers 303 See Other to the bank, at the nugget the edit concerned.
// Input the domain refuses re-renders the bank with 422 and the reason;
// a stale version or an approved report is the error handler's 409.
func (h *Reports) bankEdit(c echo.Context, do func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error)) error {
	if err := h.authoringOn(); err != nil {
		return err
	}
	id, err := parseID(c.Param("id"), "report")
	if err != nil {
		return err
	}
	form, err := readForm(c)
	if err != nil {
		return err
	}
	base, err := parseBase(form)
	if err == nil {
		_, err = do(c.Request().Context(), pipeline.Edit{Report: id, Base: base, Author: authorOf(c)}, form)
	}
	if errors.Is(err, pipeline.ErrInvalid) {
		return h.showBank(c, http.StatusUnprocessableEntity, &bankProblem{
			msg: reason(err), question: form.Get(views.FieldNuggetQuestion), answer: form.Get(views.FieldNuggetAnswer),
		})
	}
	if err != nil {
		return err
	}
	target := views.ReportNuggetsURL(id)
	if nid := strings.TrimSpace(form.Get(views.FieldNuggetID)); nid != "" && !strings.HasSuffix(c.Path(), "/"+views.NuggetRemove) {
		target += "#" + views.NuggetAnchor(nid)
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// nuggetID reads the nugget a bank form names.
func nuggetID(form url.Values) (string, error) {
	id := strings.TrimSpace(form.Get(views.FieldNuggetID))
	if id == "" {
		return "", pipeline.Invalidf("the form does not say which nugget it is about")
	}
	return id, nil
}

// AddNugget adds a nugget (views.FieldNuggetQuestion, FieldNuggetAnswer)
// to the report's bank, marked changed.
func (h *Reports) AddNugget(c echo.Context) error {
	return h.bankEdit(c, func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
		return h.Authoring.AddNugget(ctx, e, form.Get(views.FieldNuggetQuestion), form.Get(views.FieldNuggetAnswer))
	})
}

// EditNugget changes a bank nugget's question and answer.
func (h *Reports) EditNugget(c echo.Context) error {
	return h.bankEdit(c, func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
		id, err := nuggetID(form)
		if err != nil {
			return pipeline.VersionInfo{}, err
		}
		return h.Authoring.EditNugget(ctx, e, id, form.Get(views.FieldNuggetQuestion), form.Get(views.FieldNuggetAnswer))
	})
}

// RemoveNugget takes a nugget out of the bank.
func (h *Reports) RemoveNugget(c echo.Context) error {
	return h.bankEdit(c, func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
		id, err := nuggetID(form)
		if err != nil {
			return pipeline.VersionInfo{}, err
		}
		return h.Authoring.RemoveNugget(ctx, e, id)
	})
}

// PinNugget pins (views.FieldPinned "1") or unpins ("0") a bank nugget.
func (h *Reports) PinNugget(c echo.Context) error {
	return h.bankEdit(c, func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
		id, err := nuggetID(form)
		if err != nil {
			return pipeline.VersionInfo{}, err
		}
		return h.Authoring.PinNugget(ctx, e, id, parseFlag(form.Get(views.FieldPinned)))
	})
}

// MoveNugget moves a bank nugget one place up or down.
func (h *Reports) MoveNugget(c echo.Context) error {
	return h.bankEdit(c, func(ctx context.Context, e pipeline.Edit, form url.Values) (pipeline.VersionInfo, error) {
		id, err := nuggetID(form)
		if err != nil {
			return pipeline.VersionInfo{}, err
		}
		by, err := parseDirection(form)
		if err != nil {
			return pipeline.VersionInfo{}, err
		}
		return h.Authoring.MoveNugget(ctx, e, id, by)
	})
}

// RegenerateNuggets redoes the sentences of the bank's changed nuggets
// through the report's engine (synchronously) and drops the sentences of
// removed nuggets, then answers 303 See Other to the report.
func (h *Reports) RegenerateNuggets(c echo.Context) error {
	if err := h.authoringOn(); err != nil {
		return err
	}
	id, err := parseID(c.Param("id"), "report")
	if err != nil {
		return err
	}
	form, err := readForm(c)
	if err != nil {
		return err
	}
	base, err := parseBase(form)
	if err == nil {
		_, err = h.Authoring.Regenerate(c.Request().Context(), pipeline.Edit{Report: id, Base: base, Author: authorOf(c)})
	}
	if errors.Is(err, pipeline.ErrInvalid) {
		return h.showBank(c, http.StatusUnprocessableEntity, &bankProblem{msg: reason(err)})
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, views.ReportURL(id))
}
